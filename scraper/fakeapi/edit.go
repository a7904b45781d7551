package fakeapi

import (
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

// The question's own text and its edit: /filters/create, body_markdown under that filter,
// and POST /questions/{id}/edit with the real API's checks and errors.

// BodyFilter is the filter /filters/create returns here; a question fetched with it carries
// body_markdown (HTML-encoded, as under the real API's safe filters) and tags.
const BodyFilter = "!kothdFakeBodyMarkdown"

// MaxBody is the sites' limit on a question body, in characters.
const MaxBody = 30000

// Edit is one accepted edit, as the API received it.
type Edit struct {
	QuestionID int64
	Form       url.Values // body, title, tags, comment, key, access_token, site, …
	At         time.Time
}

// SetQuestion sets a question's body (markdown as typed, served encoded) and tags.
func (s *Server) SetQuestion(id int64, title, body string, tags ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.q(id)
	q.title, q.body, q.tags = title, body, tags
}

// EditByOther replaces a question's body as a person editing it on the site would (a
// rollback to an old table, a rewrite), at Unix time when.
func (s *Server) EditByOther(id int64, body string, when int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.q(id)
	q.body, q.lastEdit, q.lastActivity = body, when, max(q.lastActivity, when)
}

// Body returns a question's body as the site now holds it (not encoded).
func (s *Server) Body(id int64) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.q(id).body
}

// SetAccessToken makes token the one valid access token for edits.
func (s *Server) SetAccessToken(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.accessToken = token
}

// Edits returns the edits accepted so far, oldest first.
func (s *Server) Edits() []Edit {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Edit(nil), s.edits...)
}

func (s *Server) createFilter(q url.Values) (map[string]any, error) {
	inc := strings.Split(q.Get("include"), ";")
	fields := append([]string{".backoff", ".error_id", ".error_message", ".error_name", ".has_more", ".items", ".quota_max", ".quota_remaining",
		"question.title", "question.tags", "question.question_id", "question.last_activity_date", "question.last_edit_date"}, inc...)
	filter := BodyFilter
	if !strings.Contains(q.Get("include"), "question.body_markdown") {
		filter = "default"
	}
	typ := "safe"
	if q.Get("unsafe") == "true" {
		typ = "unsafe" // served like safe here: kothd asks for a safe one
	}
	return map[string]any{"items": []map[string]any{{"filter": filter, "filter_type": typ, "included_fields": fields}}, "has_more": false}, nil
}

// withMarkdown adds what the body filter includes to a question item.
func (s *Server) withMarkdown(item map[string]any, q *question) {
	item["title"] = encode(q.title)
	item["body_markdown"] = encode(q.body)
	item["tags"] = append([]string{}, q.tags...)
	if q.lastEdit != 0 {
		item["last_edit_date"] = q.lastEdit
	}
}

type errorEnvelope struct {
	id        int
	name, msg string
}

// edit applies POST /questions/{id}/edit as the real API checks it: an application key
// and a valid access token, the site, a title and a body within the limits; title and tags
// are replaced too.
func (s *Server) edit(id int64, f url.Values) (map[string]any, *errorEnvelope) {
	switch {
	case f.Get("access_token") == "":
		return nil, &errorEnvelope{401, "access_token_required", "This method requires an access_token"}
	case f.Get("key") == "":
		return nil, &errorEnvelope{405, "key_required", "`key` is required when `access_token` is passed"}
	case s.accessToken == "" || f.Get("access_token") != s.accessToken:
		return nil, &errorEnvelope{402, "invalid_access_token", "`access_token` is invalid"}
	}
	q := s.questions[id]
	if q == nil {
		return nil, &errorEnvelope{400, "bad_parameter", "No post found for id"}
	}
	body, title := f.Get("body"), f.Get("title")
	switch n := utf8.RuneCountInString(body); {
	case n < 30:
		return nil, &errorEnvelope{400, "bad_parameter", "body must be at least 30 characters"}
	case n > MaxBody:
		return nil, &errorEnvelope{400, "bad_parameter", "body cannot be longer than 30000 characters"}
	case title == "":
		return nil, &errorEnvelope{400, "bad_parameter", "title is required"}
	case f.Get("tags") == "":
		return nil, &errorEnvelope{400, "bad_parameter", "tags is required"}
	}
	now := time.Now()
	if now.Unix() <= q.lastEdit {
		now = time.Unix(q.lastEdit+1, 0) // the site's dates never go back: an edit comes after the last one
	}
	q.body, q.title, q.tags = body, title, strings.Split(f.Get("tags"), ";")
	q.lastEdit, q.lastActivity = now.Unix(), now.Unix()
	s.edits = append(s.edits, Edit{QuestionID: id, Form: f, At: now})
	item := map[string]any{"question_id": id, "last_activity_date": q.lastActivity, "answer_count": len(q.answers)}
	if f.Get("filter") == BodyFilter {
		s.withMarkdown(item, q)
	}
	return map[string]any{"items": []map[string]any{item}, "has_more": false}, nil
}

// encode is what the real API does to text fields under a safe filter.
func encode(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;").Replace(s)
}
