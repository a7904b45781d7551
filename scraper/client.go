package scraper

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
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

	HTTP  *http.Client // default: a client without timeout (Timeout below applies per attempt)
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

// get performs one API call with waiting, retries and bookkeeping, and returns the raw
// decompressed body with its parsed envelope. An error envelope is returned as *APIError.
func (c *Client) get(ctx context.Context, method, path string, q url.Values) ([]byte, *Page, error) {
	c.reqMu.Lock()
	defer c.reqMu.Unlock()
	u := strings.TrimRight(or(c.BaseURL, DefaultBaseURL), "/") + path + "?" + q.Encode()
	retries := c.Retries
	if retries == 0 {
		retries = 4
	}
	delay := durOr(c.RetryBase, 2*time.Second)
	for attempt := 0; ; attempt++ {
		if err := c.wait(ctx, method); err != nil {
			return nil, nil, err
		}
		body, p, err := c.attempt(ctx, method, u)
		if err == nil {
			return body, p, nil
		}
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		if !retryable(err) || attempt >= retries {
			if attempt > 0 {
				return nil, nil, fmt.Errorf("after %d attempts: %w", attempt+1, err)
			}
			return nil, nil, err
		}
		c.log().Warn("stack exchange API call failed, retrying", "method", method, "attempt", attempt+1, "retry_in", delay, "err", err)
		if err := c.clock().Sleep(ctx, delay); err != nil {
			return nil, nil, err
		}
		delay = min(2*delay, durOr(c.RetryMax, time.Minute))
	}
}

// transientError marks failures worth retrying that are not API envelopes.
type transientError struct{ err error }

func (e *transientError) Error() string { return e.err.Error() }
func (e *transientError) Unwrap() error { return e.err }

func retryable(err error) bool {
	var te *transientError
	if errors.As(err, &te) {
		return true
	}
	var ae *APIError
	return errors.As(err, &ae) && ae.Temporary()
}

// maxBody bounds what the client reads (compressed) and inflates.
const maxBody = 64 << 20

// attempt makes one HTTP request and interprets the response.
func (c *Client) attempt(ctx context.Context, method, u string) ([]byte, *Page, error) {
	actx, cancel := context.WithTimeout(ctx, durOr(c.Timeout, time.Minute))
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodGet, u, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("build request: %w", err)
	}
	// Setting Accept-Encoding ourselves turns off the transport's transparent gunzip: the
	// body is decoded below by sniffing, whatever the Content-Encoding header says.
	req.Header.Set("Accept-Encoding", "gzip, deflate")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "kothd (King of the Hill host)")
	c.mu.Lock()
	c.requests++
	c.mu.Unlock()
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, nil, &transientError{fmt.Errorf("request: %w", err)}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, nil, &transientError{fmt.Errorf("read response (HTTP %d): %w", resp.StatusCode, err)}
	}
	if len(raw) > maxBody {
		return nil, nil, fmt.Errorf("response larger than %d bytes", maxBody)
	}
	body, err := decodeBody(raw, resp.Header.Get("Content-Encoding"))
	if err != nil {
		err = fmt.Errorf("HTTP %d: %w", resp.StatusCode, err)
		if resp.StatusCode >= 500 {
			return nil, nil, &transientError{err}
		}
		return nil, nil, err
	}
	var p Page
	if err := json.Unmarshal(body, &p); err != nil {
		if resp.StatusCode != http.StatusOK {
			return nil, nil, &APIError{Status: resp.StatusCode, Method: method}
		}
		return nil, nil, fmt.Errorf("malformed API response (HTTP %d, %d bytes): %w", resp.StatusCode, len(body), err)
	}
	c.observe(method, &p)
	if p.ErrorID != 0 {
		ae := &APIError{ID: p.ErrorID, Name: p.ErrorName, Message: p.ErrorMessage, Status: resp.StatusCode, Method: method}
		if ae.ID == 502 {
			c.throttled(ae.Message)
		}
		return nil, nil, ae
	}
	if resp.StatusCode != http.StatusOK {
		return nil, nil, &APIError{Status: resp.StatusCode, Method: method}
	}
	return body, &p, nil
}

// observe records the backoff and quota a response reported.
func (c *Client) observe(method string, p *Page) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.clock().Now()
	if p.Backoff > 0 {
		if c.next == nil {
			c.next = map[string]time.Time{}
		}
		c.next[method] = now.Add(time.Duration(p.Backoff) * time.Second)
		c.log().Info("stack exchange API asked to back off", "method", method, "seconds", p.Backoff)
	}
	if p.QuotaMax > 0 {
		c.quota = Quota{Remaining: p.QuotaRemaining, Max: p.QuotaMax, At: now}
	}
}

var throttleSeconds = regexp.MustCompile(`available in (\d+) seconds?`)

// throttled records a throttle_violation ban: no request at all until it expires. The API
// says how long in the message ("... more requests available in 84405 seconds"); without
// that, the ban lasts until the quota resets.
func (c *Client) throttled(msg string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.clock().Now()
	until := nextUTCMidnight(now)
	if m := throttleSeconds.FindStringSubmatch(msg); m != nil {
		if s, err := strconv.Atoi(m[1]); err == nil {
			until = now.Add(time.Duration(s) * time.Second)
		}
	}
	c.blockedUntil = until
}

// wait blocks until method may be called, or says why it may not be called now.
func (c *Client) wait(ctx context.Context, method string) error {
	c.mu.Lock()
	now := c.clock().Now()
	blocked := c.blockedUntil
	q := c.quota
	next := c.next[method]
	c.mu.Unlock()
	if now.Before(blocked) {
		return fmt.Errorf("%w until %s", ErrThrottled, blocked.UTC().Format(time.RFC3339))
	}
	minQuota := c.MinQuota
	if minQuota == 0 {
		minQuota = 10
	}
	if !q.At.IsZero() && q.Remaining < minQuota && now.Before(nextUTCMidnight(q.At)) {
		return fmt.Errorf("%w: %d of %d requests left (threshold %d), resets at %s",
			ErrQuotaLow, q.Remaining, q.Max, minQuota, nextUTCMidnight(q.At).Format(time.RFC3339))
	}
	if d := next.Sub(now); d > 0 {
		if d > durOr(c.MaxWait, 5*time.Minute) {
			return fmt.Errorf("%w: %s may not be called before %s", ErrBackoff, method, next.UTC().Format(time.RFC3339))
		}
		c.log().Info("waiting for stack exchange API backoff", "method", method, "wait", d)
		return c.clock().Sleep(ctx, d)
	}
	return nil
}

func nextUTCMidnight(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC)
}

func (c *Client) clock() Clock {
	if c.Clock == nil {
		return realClock{}
	}
	return c.Clock
}

func (c *Client) log() *slog.Logger {
	if c.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return c.Log
}

func (c *Client) pageSize() int {
	if c.PageSize <= 0 || c.PageSize > 100 {
		return 100
	}
	return c.PageSize
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func durOr(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}
