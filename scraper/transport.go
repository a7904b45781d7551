package scraper

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/kothd/kothd/internal/httpclient"
)

// How the client makes one call: wait for backoff, quota and bans; request; decode;
// record what the response says about backoff and quota; retry what is transient.

// get performs one API call with waiting, retries and bookkeeping, and returns the raw
// decompressed body with its parsed envelope. An error envelope is returned as *APIError.
func (c *Client) get(ctx context.Context, method, path string, q url.Values) ([]byte, *Page, error) {
	c.reqMu.Lock()
	defer c.reqMu.Unlock()
	u := strings.TrimRight(cmp.Or(c.BaseURL, DefaultBaseURL), "/") + path + "?" + q.Encode()
	retries := cmp.Or(c.Retries, 4)
	var body []byte
	var p *Page
	var waitErr error // the wait before an attempt failed: no retry
	r := httpclient.Retry{Base: durOr(c.RetryBase, 2*time.Second), Max: durOr(c.RetryMax, time.Minute), Sleep: c.clock().Sleep}
	err := r.Do(ctx, func(int) error {
		if waitErr = c.wait(ctx, method); waitErr != nil {
			return waitErr
		}
		var err error
		body, p, err = c.attempt(ctx, method, u, nil)
		return err
	}, func(n int, err error, delay time.Duration) httpclient.Next {
		switch {
		case waitErr != nil:
			return httpclient.Next{Stop: err}
		case ctx.Err() != nil:
			return httpclient.Next{Stop: ctx.Err()}
		case !retryable(err) || n > retries:
			if n > 1 {
				return httpclient.Next{Stop: fmt.Errorf("after %d attempts: %w", n, err)}
			}
			return httpclient.Next{Stop: err}
		}
		c.log().Warn("stack exchange API call failed, retrying", "method", method, "attempt", n, "retry_in", delay, "err", err)
		return httpclient.Next{Wait: delay, Grow: true}
	}, nil)
	if err != nil {
		return nil, nil, err
	}
	return body, p, nil
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

// defaultHTTP bounds every stage of a request (connect, TLS, headers, whole request), on
// top of the per-attempt Timeout: Go's default client would wait for ever on a server
// that accepts a connection and never answers.
var defaultHTTP = httpclient.New(httpclient.Default)

// maxBody bounds what the client reads (compressed) and inflates.
const maxBody = 64 << 20

// attempt makes one HTTP request and interprets the response: a GET, or a POST of form
// when form is not nil (the write methods; see edit.go).
func (c *Client) attempt(ctx context.Context, method, u string, form url.Values) ([]byte, *Page, error) {
	timeout := durOr(c.Timeout, time.Minute)
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	verb, payload := http.MethodGet, io.Reader(nil)
	if form != nil {
		verb, payload = http.MethodPost, strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(actx, verb, u, payload)
	if err != nil {
		return nil, nil, fmt.Errorf("build request: %w", err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
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
		hc = defaultHTTP
	}
	resp, err := hc.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			ue.URL = redactKey(ue.URL) // keys are not secret, but logs need not carry them
		}
		if actx.Err() != nil && ctx.Err() == nil {
			return nil, nil, &transientError{fmt.Errorf("no response within %s: %w", timeout, err)}
		}
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
	if page := htmlPage(raw, body, err, resp.Header.Get("Content-Type")); page {
		// A proxy's or the site's error page, not the API: say so, not what inflating it
		// or parsing it as JSON said.
		err = fmt.Errorf("the API answered HTTP %d with an HTML page (%s)", resp.StatusCode, htmlMeaning(resp.StatusCode))
		if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests {
			return nil, nil, &transientError{err}
		}
		return nil, nil, err
	}
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
		c.next[method] = now.Add(c.told("backoff", int64(p.Backoff)))
		c.savePause("pause:"+c.stateBase()+"|"+method, c.next[method])
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
		s, err := strconv.ParseInt(m[1], 10, 64)
		if errors.Is(err, strconv.ErrRange) {
			s, err = math.MaxInt64, nil
		}
		if err == nil {
			until = now.Add(c.told("throttle", s))
		}
	}
	c.blockedUntil = until
	c.savePause("ban:"+c.stateBase(), until)
}

// maxTold is the longest pause the API may impose with one backoff or throttle: longer
// values are garbage (10^10 s would overflow a time.Duration and wrap into the past, so
// the pause would be ignored), and are clamped, and logged.
const maxTold = 48 * time.Hour

// told converts seconds the API asked for into a pause within [0, maxTold].
func (c *Client) told(what string, seconds int64) time.Duration {
	if seconds < 0 {
		c.log().Warn("stack exchange API sent a negative pause: ignored", "what", what, "seconds", seconds)
		return 0
	}
	if seconds > int64(maxTold/time.Second) {
		c.log().Warn("stack exchange API asked for an absurd pause: clamped", "what", what, "seconds", seconds, "clamped_to", maxTold)
		return maxTold
	}
	return time.Duration(seconds) * time.Second
}

// wait blocks until method may be called, or says why it may not be called now.
func (c *Client) wait(ctx context.Context, method string) error {
	c.mu.Lock()
	c.loadState()
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

func durOr(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

func redactKey(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	q := p.Query()
	if q.Has("key") {
		q.Set("key", "REDACTED")
		p.RawQuery = q.Encode()
	}
	return p.String()
}

// htmlPage says whether a response is an HTML page rather than the API's JSON: its decoded
// body (or, when it would not decode, its raw bytes) starts with '<', or it says text/html
// and is not JSON.
func htmlPage(raw, decoded []byte, decodeErr error, contentType string) bool {
	b := decoded
	if decodeErr != nil {
		b = raw
	}
	t := bytes.TrimLeft(b, " \t\r\n\ufeff")
	if len(t) > 0 && t[0] == '<' {
		return true
	}
	return strings.HasPrefix(strings.ToLower(contentType), "text/html") && !looksLikeJSON(b)
}

// htmlMeaning is what an HTML answer with this status means for kothd.
func htmlMeaning(status int) string {
	switch {
	case status >= 500 || status == http.StatusTooManyRequests:
		return "temporarily unavailable"
	case status == http.StatusOK:
		return "not the API: a proxy or captive portal in the way, or api_base is wrong"
	}
	return "not the API's answer: check api_base"
}
