// Package fakeapi is a stand-in for the Stack Exchange API 2.3 in tests: an httptest server
// that speaks the real wire format for the methods kothd uses: /questions/{ids}/answers,
// /questions/{ids}, and for the question's own leaderboard /filters/create and the write
// methods POST /questions/{id}/edit (edit.go) and POST /posts/{id}/comments/add (comment.go). It pages (pagesize, page, has_more),
// sorts by creation, compresses its bodies (gzip like the real API, or deflate, or
// nothing, with or without a Content-Encoding header), counts requests, spends a daily
// quota and answers throttle_violation when it is gone, and plays scripted faults: error
// envelopes, bare 5xx pages, malformed JSON, backoff, slow responses.
//
// It does not import kothd's scraper, so tests of any package (the scraper's own, the
// cycle's) can use it.
package fakeapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// Encodings of response bodies.
const (
	Gzip       = "gzip"        // what the real API sends
	Zlib       = "deflate"     // RFC 1950 zlib stream, labelled "deflate" as HTTP does
	RawDeflate = "raw-deflate" // RFC 1951 stream without zlib header, labelled "deflate"
	Identity   = "identity"    // plain JSON
)

// Fault is a scripted misbehaviour, used once by the next request of its method.
type Fault struct {
	Method string // "answers", "questions" or "" for any

	// An error envelope (error_id ≠ 0), sent with HTTP Status (default 400).
	ErrorID      int
	ErrorName    string
	ErrorMessage string

	// Status with Body sent as is (Body may be malformed JSON or an HTML error page). Used
	// when ErrorID is 0 and Status or Body is set.
	Status int
	Body   string

	// Backoff adds "backoff": N to an otherwise normal response.
	Backoff int
	// Delay holds the response back (to exercise client time-outs).
	Delay time.Duration
}

// Server is the fake API. Its settings may be changed between requests.
type Server struct {
	*httptest.Server

	mu             sync.Mutex
	site           string
	questions      map[int64]*question
	encoding       string
	omitHeader     bool
	quotaMax       int
	quotaRemaining int
	faults         []Fault
	requests       []string
	endless        string
	accessToken    string // the one valid access token of edits ("" accepts none)
	edits          []Edit
	reputation     int    // of the account behind the access token (comments need 50)
	readOnlyToken  string // a valid token without write_access
	comments       []Comment
	nextComment    int64
}

// Ways SetEndless makes has_more lie.
const (
	EndlessEmpty  = "empty"  // pages past the end are empty and say has_more
	EndlessRepeat = "repeat" // pages past the end repeat the last page and say has_more
)

// SetEndless makes every answers page say has_more (mode EndlessEmpty or EndlessRepeat),
// or ends that with "".
func (s *Server) SetEndless(mode string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.endless = mode
}

type question struct {
	title        string
	body         string   // body_markdown as its author typed it (sent encoded)
	tags         []string // sent as they are
	lastEdit     int64
	lastActivity int64 // question-level activity on top of its answers'
	answers      map[int64]json.RawMessage
	created      map[int64]int64
	activity     map[int64]int64
	revisions    map[int64][]revision // each answer's edit history, oldest first
}

// revision is one entry of an answer's edit history: its number and when it was made.
type revision struct {
	number  int
	created int64
}

// New starts a fake API for site "codegolf" with gzip bodies and a quota of 10000.
func New() *Server {
	s := &Server{site: "codegolf", questions: map[int64]*question{}, encoding: Gzip, quotaMax: 10000, quotaRemaining: 10000, reputation: 101}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// BaseURL is what a client uses as its API base (the server's URL plus "/2.3").
func (s *Server) BaseURL() string { return s.URL + "/2.3" }

// SetEncoding sets how bodies are compressed and whether Content-Encoding is sent.
func (s *Server) SetEncoding(encoding string, header bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.encoding, s.omitHeader = encoding, !header
}

// SetQuota sets the daily quota and what is left of it.
func (s *Server) SetQuota(max, remaining int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.quotaMax, s.quotaRemaining = max, remaining
}

// Fail queues faults; each is used by one request.
func (s *Server) Fail(f ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, f...)
}

// Requests returns the number of requests served so far.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// Log returns the request URIs served so far, in order.
func (s *Server) Log() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

// AddQuestion creates (or renames) a question with no answers.
func (s *Server) AddQuestion(id int64, title string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.q(id).title = title
}

func (s *Server) q(id int64) *question {
	q := s.questions[id]
	if q == nil {
		q = &question{title: fmt.Sprintf("Question %d", id), answers: map[int64]json.RawMessage{}, created: map[int64]int64{}, activity: map[int64]int64{}, revisions: map[int64][]revision{}}
		s.questions[id] = q
	}
	return q
}

// Put adds or replaces answers of a question. Each answer is any JSON-marshalable value
// with at least answer_id and creation_date (a scraper.Answer, a map, a json.RawMessage).
// Its edit history (/posts/{ids}/revisions) follows: a new answer has revision 1, and a
// second when it carries a last_edit_date; replacing an answer with different JSON is one
// more edit.
func (s *Server) Put(questionID int64, answers ...any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.q(questionID)
	for _, a := range answers {
		raw, err := json.Marshal(a)
		if err != nil {
			return fmt.Errorf("fakeapi: marshal answer: %w", err)
		}
		var k struct {
			AnswerID     int64 `json:"answer_id"`
			CreationDate int64 `json:"creation_date"`
			LastActivity int64 `json:"last_activity_date"`
			LastEdit     int64 `json:"last_edit_date"`
		}
		if err := json.Unmarshal(raw, &k); err != nil || k.AnswerID == 0 {
			return fmt.Errorf("fakeapi: answer without answer_id: %s", raw)
		}
		old, had := q.answers[k.AnswerID]
		revs := q.revisions[k.AnswerID]
		switch {
		case !had:
			revs = []revision{{1, k.CreationDate}}
			if k.LastEdit > k.CreationDate {
				revs = append(revs, revision{2, k.LastEdit})
			}
		case !bytes.Equal(old, raw):
			revs = append(revs, revision{len(revs) + 1, max(k.LastEdit, k.LastActivity, revs[len(revs)-1].created)})
		}
		q.revisions[k.AnswerID] = revs
		q.answers[k.AnswerID] = raw
		q.created[k.AnswerID] = k.CreationDate
		q.activity[k.AnswerID] = max(k.CreationDate, k.LastActivity)
	}
	return nil
}

// Delete removes answers, as when their authors delete them.
func (s *Server) Delete(questionID int64, answerIDs ...int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.q(questionID)
	for _, id := range answerIDs {
		delete(q.answers, id)
		delete(q.created, id)
		delete(q.activity, id)
		delete(q.revisions, id)
	}
}

// LoadSnapshot serves the answers recorded in a snapshot directory
// (<dir>/<site>/<question_id>/answers.<page>.json), for every question found there.
func (s *Server) LoadSnapshot(dir, site string) error {
	entries, err := os.ReadDir(filepath.Join(dir, site))
	if err != nil {
		return fmt.Errorf("fakeapi: %w", err)
	}
	for _, e := range entries {
		id, err := strconv.ParseInt(e.Name(), 10, 64)
		if err != nil || !e.IsDir() {
			continue
		}
		for page := 1; ; page++ {
			b, err := os.ReadFile(filepath.Join(dir, site, e.Name(), fmt.Sprintf("answers.%d.json", page)))
			if err != nil {
				if page == 1 {
					return fmt.Errorf("fakeapi: %w", err)
				}
				break
			}
			var p struct {
				Items   []json.RawMessage `json:"items"`
				HasMore bool              `json:"has_more"`
			}
			if err := json.Unmarshal(b, &p); err != nil {
				return fmt.Errorf("fakeapi: snapshot %s page %d: %w", e.Name(), page, err)
			}
			for _, it := range p.Items {
				if err := s.Put(id, it); err != nil {
					return err
				}
			}
			if !p.HasMore {
				break
			}
		}
	}
	return nil
}

// Touch bumps a question's last activity (as a comment or an edit of the question would).
func (s *Server) Touch(questionID, when int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.q(questionID).lastActivity = when
}
