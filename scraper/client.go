package scraper

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultBaseURL is the API the client talks to unless told otherwise (config api_base).
const DefaultBaseURL = "https://api.stackexchange.com/2.3"

// API method names, the keys of the per-method backoff table.
const (
	methodAnswers   = "questions/{ids}/answers"
	methodQuestions = "questions/{ids}"
)

// Clock lets tests run the client's waits (backoff, retries) without waiting.
type Clock interface {
	Now() time.Time
	// Sleep waits d or until ctx is done, whichever comes first.
	Sleep(ctx context.Context, d time.Duration) error
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Client is a Stack Exchange API 2.3 client for one site. It is safe for concurrent use;
// requests are made one at a time, so the API's `backoff` is always honoured. The exported
// fields are settings: change them before the first request. Zero values mean the defaults
// documented on each field.
type Client struct {
	BaseURL string // default DefaultBaseURL
	Site    string // default "codegolf"
	Key     string // optional application key (raises the daily quota from 300 to 10000)

	HTTP  *http.Client // default: httpclient.Default's bounds (Timeout below applies per attempt too)
	Clock Clock        // default: the real clock
	Log   *slog.Logger // default: discard

	// MinQuota: no request is started while the last reported quota_remaining is below
	// this (until the quota resets at UTC midnight). Default 10; negative disables.
	MinQuota int
	// Retries of a transient failure (5xx, internal_error, network error, time-out) after
	// the first attempt. Default 4; negative disables.
	Retries int
	// RetryBase doubles per retry up to RetryMax. Defaults 2s and 1m.
	RetryBase, RetryMax time.Duration
	// MaxWait is the longest `backoff` the client sleeps through; a longer one fails the
	// call with ErrBackoff. Default 5m.
	MaxWait time.Duration
	// Timeout bounds one attempt (request and body). Default 1m.
	Timeout time.Duration
	// PageSize of answer pages. Default (and API maximum) 100.
	PageSize int
	// State, when set, keeps bans, backoffs and the body filter across processes
	// (state.go); nil: this process only.
	State State

	reqMu sync.Mutex // one request at a time

	mu           sync.Mutex
	next         map[string]time.Time // method → earliest next call (backoff)
	blockedUntil time.Time            // throttle_violation ban
	quota        Quota
	requests     int
	counts       map[int64]counted // question → its answer_count from the last Probe
	filter       string            // the body_markdown filter, once created (edit.go)
	stateLoaded  bool              // State's pauses read (state.go)
}

type counted struct {
	n  int
	at time.Time
}

// Quota is the last quota the API reported.
type Quota struct {
	Remaining, Max int
	At             time.Time // when it was reported; zero when never
}

// New returns a client for the API at baseURL ("" for the default) and site, with an
// optional application key.
func New(baseURL, site, key string) *Client {
	return &Client{BaseURL: baseURL, Site: site, Key: key}
}

// Requests is the number of HTTP requests the client has made (attempts, retries included).
func (c *Client) Requests() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.requests
}

// Quota returns the last quota the API reported.
func (c *Client) Quota() Quota {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.quota
}

// Answers returns all answers of a question, oldest first, paging while has_more. It
// returns everything or an error, never a partial list (a partial list would look like
// deleted answers). An item that belongs to another question is dropped and logged: it
// must not enter this question's challenge.
func (c *Client) Answers(ctx context.Context, questionID int64) ([]Answer, error) {
	col := newCollector(questionID, c.log())
	err := c.answerPages(ctx, questionID, func(page int, body []byte) error {
		items, _, err := decodeAnswersPage(body)
		if err != nil {
			return fmt.Errorf("page %d: %w", page, err)
		}
		col.add(page, items)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return col.all, nil
}

// maxPages is the hard cap on answer pages of one question (10,000 answers at 100 a page),
// whatever the API says.
const maxPages = 100

// uncountedPages are fetched on has_more alone; past them the question's answer_count is
// asked for (one request) unless a recent Probe told it. No KotH question comes near 500
// answers, so a well-behaved API never pays for the count.
const uncountedPages = 5

// answerPages calls fn with the raw (decompressed) body of every answers page of a question.
// has_more is believed only as far as the question's answer_count allows (one page of
// slack for answers posted while paging): an API or proxy that says has_more for ever
// would otherwise cost a request per page up to the cap, every cycle.
func (c *Client) answerPages(ctx context.Context, questionID int64, fn func(page int, body []byte) error) error {
	limit, counted := maxPages, false
	if n, ok := c.recentCount(questionID); ok {
		limit, counted = c.pagesFor(n), true
	}
	for page := 1; ; page++ {
		if page > limit {
			return fmt.Errorf("fetch answers of %d: the API still says has_more after page %d, more than the question's answers fill (%s): stopping", questionID, page-1, c.limitWhy(limit))
		}
		q := c.params()
		q.Set("filter", "withbody")
		q.Set("pagesize", strconv.Itoa(c.pageSize()))
		q.Set("page", strconv.Itoa(page))
		q.Set("sort", "creation")
		q.Set("order", "asc")
		body, p, err := c.get(ctx, methodAnswers, "/questions/"+strconv.FormatInt(questionID, 10)+"/answers", q)
		if err != nil {
			return fmt.Errorf("fetch answers of %d page %d: %w", questionID, page, err)
		}
		if err := fn(page, body); err != nil {
			return fmt.Errorf("fetch answers of %d: %w", questionID, err)
		}
		if !p.HasMore {
			return nil
		}
		if empty(p.Items) {
			return fmt.Errorf("fetch answers of %d: page %d is empty but says has_more: stopping", questionID, page)
		}
		if page >= uncountedPages && !counted {
			info, err := c.Probe(ctx, []int64{questionID})
			if err != nil {
				return fmt.Errorf("fetch answers of %d: count its answers: %w", questionID, err)
			}
			if len(info) == 0 {
				return fmt.Errorf("fetch answers of %d: the API pages its answers but does not know the question", questionID)
			}
			limit, counted = c.pagesFor(info[0].AnswerCount), true
		}
	}
}

// pagesFor is how many pages n answers may take, with a page of slack.
func (c *Client) pagesFor(n int) int {
	return min(maxPages, max(n, 0)/c.pageSize()+2)
}

// countFresh is how long a Probe's answer_count bounds paging.
const countFresh = 15 * time.Minute

func (c *Client) recentCount(questionID int64) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k, ok := c.counts[questionID]
	if !ok || c.clock().Now().Sub(k.at) > countFresh {
		return 0, false
	}
	return k.n, true
}

func (c *Client) limitWhy(limit int) string {
	if limit == maxPages {
		return fmt.Sprintf("hard cap of %d pages", maxPages)
	}
	return fmt.Sprintf("its answer_count allows %d pages of %d", limit, c.pageSize())
}

func empty(items json.RawMessage) bool {
	var v []json.RawMessage
	return len(items) == 0 || json.Unmarshal(items, &v) == nil && len(v) == 0
}

// probeBatch is the API's limit on ids in one vectorised call.
const probeBatch = 100

// Probe asks, in one request per 100 questions, for each question's answer count and last
// activity date, so a caller can fetch only questions that changed (see Changed). Questions
// the API does not return (deleted, or on another site) are missing from the result; the
// result follows the order of ids.
func (c *Client) Probe(ctx context.Context, ids []int64) ([]QuestionInfo, error) {
	ids = uniqueIDs(ids)
	got := map[int64]QuestionInfo{}
	for start := 0; start < len(ids); start += probeBatch {
		batch := ids[start:min(start+probeBatch, len(ids))]
		parts := make([]string, len(batch))
		for i, id := range batch {
			parts[i] = strconv.FormatInt(id, 10)
		}
		q := c.params()
		q.Set("filter", "default")
		q.Set("pagesize", strconv.Itoa(probeBatch))
		_, p, err := c.get(ctx, methodQuestions, "/questions/"+strings.Join(parts, ";"), q)
		if err != nil {
			return nil, fmt.Errorf("probe questions %s: %w", strings.Join(parts, ";"), err)
		}
		var items []QuestionInfo
		if len(p.Items) > 0 {
			if err := json.Unmarshal(p.Items, &items); err != nil {
				return nil, fmt.Errorf("probe questions %s: malformed items: %w", strings.Join(parts, ";"), err)
			}
		}
		c.mu.Lock()
		if c.counts == nil {
			c.counts = map[int64]counted{}
		}
		for _, it := range items {
			got[it.QuestionID] = it
			c.counts[it.QuestionID] = counted{it.AnswerCount, c.clock().Now()}
		}
		c.mu.Unlock()
	}
	var out []QuestionInfo
	for _, id := range ids {
		if it, ok := got[id]; ok {
			out = append(out, it)
		}
	}
	return out, nil
}

func uniqueIDs(ids []int64) []int64 {
	seen := map[int64]bool{}
	var out []int64
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

func (c *Client) params() url.Values {
	q := url.Values{}
	q.Set("site", cmp.Or(c.Site, "codegolf"))
	if c.Key != "" {
		q.Set("key", c.Key)
	}
	return q
}
