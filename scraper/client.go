package scraper

import (
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

	reqMu sync.Mutex // one request at a time

	mu           sync.Mutex
	next         map[string]time.Time // method → earliest next call (backoff)
	blockedUntil time.Time            // throttle_violation ban
	quota        Quota
	requests     int
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
// deleted answers).
func (c *Client) Answers(ctx context.Context, questionID int64) ([]Answer, error) {
	var all []Answer
	seen := map[int64]bool{}
	err := c.answerPages(ctx, questionID, func(page int, body []byte) error {
		items, _, err := decodeAnswersPage(body)
		if err != nil {
			return fmt.Errorf("page %d: %w", page, err)
		}
		for _, a := range items {
			// An answer undeleted while we page shifts later pages by one: skip the repeat.
			if !seen[a.AnswerID] {
				seen[a.AnswerID] = true
				all = append(all, a)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return all, nil
}

// maxPages guards against an API (or fake) that says has_more forever.
const maxPages = 1000

// answerPages calls fn with the raw (decompressed) body of every answers page of a question.
func (c *Client) answerPages(ctx context.Context, questionID int64, fn func(page int, body []byte) error) error {
	for page := 1; ; page++ {
		if page > maxPages {
			return fmt.Errorf("fetch answers of %d: more than %d pages", questionID, maxPages)
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
	}
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
		for _, it := range items {
			got[it.QuestionID] = it
		}
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
	q.Set("site", or(c.Site, "codegolf"))
	if c.Key != "" {
		q.Set("key", c.Key)
	}
	return q
}
