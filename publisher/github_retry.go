package publisher

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/kothd/kothd/internal/httpclient"
)

// How the GitHub sink survives GitHub: which failures are retried, how long it waits, and
// what it tells the host about the ones it cannot fix.

const (
	maxGitHubAttempts = 8
	retryBase         = time.Second
	retryMax          = time.Minute
	// defaultLimitWait is GitHub's advice for a rate limit that names no time: at least a minute.
	defaultLimitWait = time.Minute
)

// scopeHint says what a token needs to publish.
const scopeHint = "a fine-grained token needs access to this repository with the Contents permission set to Read and write; a classic token needs the repo scope (public_repo for a public repository)"

// permanentError marks a failure no retry can fix.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

func permanent(err error) error { return &permanentError{err} }

// retry runs one attempt after another until one succeeds, a failure cannot be retried,
// the attempts run out or the context's deadline would pass.
func (g *GitHub) retry(ctx context.Context, what string, attempt func(*github.Client) error) error {
	var last error
	var why string // why the last failure is retried, for a wait cut short
	deadline := durOr(g.Deadline, DefaultGitHubDeadline)
	r := httpclient.Retry{Base: retryBase, Max: retryMax, Sleep: g.pause}
	return r.Do(ctx, func(int) error { return attempt(g.client()) }, func(n int, err error, delay time.Duration) httpclient.Next {
		if ctx.Err() != nil {
			if last == nil || !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
				last = err
			}
			why := "last failure"
			if errors.Is(last, context.DeadlineExceeded) {
				why = "GitHub did not answer"
			}
			return httpclient.Next{Stop: fmt.Errorf("%s: %s: no success within the deadline of %s (%w) after %d attempt(s); %s: %v",
				g.Target(), what, deadline, context.Cause(ctx), n, why, g.explain(last))}
		}
		last = err
		var wait time.Duration
		var ok bool
		wait, why, ok = g.classify(err, delay)
		if !ok {
			return httpclient.Next{Stop: fmt.Errorf("%s: %s: %w", g.Target(), what, g.explain(err))}
		}
		if n >= maxGitHubAttempts {
			return httpclient.Next{Stop: fmt.Errorf("%s: %s: giving up after %d attempts: %w", g.Target(), what, n, g.explain(err))}
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return httpclient.Next{Stop: fmt.Errorf("%s: %s: retrying (%s) in %s would pass this publication's deadline of %s; the next cycle retries: %w",
				g.Target(), what, why, wait.Round(time.Second), deadline, g.explain(err))}
		}
		g.log().Warn("github: retrying", "target", g.Target(), "what", what, "attempt", n, "reason", why, "wait", wait, "err", err)
		return httpclient.Next{Wait: wait, Grow: strings.HasPrefix(why, "transient")}
	}, func(err error) error {
		return fmt.Errorf("%s: %s: %w while waiting to retry (%s): %v", g.Target(), what, err, why, last)
	})
}

// classify says whether err is worth another attempt, after how long, and why.
func (g *GitHub) classify(err error, backoff time.Duration) (time.Duration, string, bool) {
	var pe *permanentError
	if errors.As(err, &pe) {
		return 0, "", false
	}
	var rl *github.RateLimitError
	if errors.As(err, &rl) {
		return g.clamp(time.Until(rl.Rate.Reset.Time)+time.Second, "X-RateLimit-Reset "+rl.Rate.Reset.UTC().Format(time.RFC3339)),
			fmt.Sprintf("primary rate limit (%d requests an hour)", rl.Rate.Limit), true
	}
	var ab *github.AbuseRateLimitError
	if errors.As(err, &ab) {
		return g.toldWait(ab.Response), "secondary rate limit", true
	}
	var ae *github.AcceptedError
	if errors.As(err, &ae) {
		return backoff, "transient: GitHub accepted the request but has not done it yet", true
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) {
		code := status(err)
		switch {
		case code == http.StatusTooManyRequests,
			code == http.StatusForbidden && er.Response.Header.Get("Retry-After") != "",
			code == http.StatusForbidden && er.Response.Header.Get("X-RateLimit-Remaining") == "0":
			return g.toldWait(er.Response), fmt.Sprintf("rate limit (HTTP %d)", code), true
		case code == http.StatusUnprocessableEntity && strings.Contains(strings.ToLower(er.Message), "not a fast forward"):
			return 0, "the branch moved meanwhile: reading it again", true
		case code >= 500:
			return backoff, fmt.Sprintf("transient: HTTP %d", code), true
		}
		return 0, "", false
	}
	// Anything else is the network: refused, reset, timed out (a per-request timeout, not
	// the publication's deadline: retry checks that first), a truncated body.
	return backoff, "transient: network", true
}

// toldWait is how long a rate-limited response asks to wait: Retry-After (seconds or an
// HTTP date), else X-RateLimit-Reset when nothing is left, else GitHub's documented
// advice of a minute.
func (g *GitHub) toldWait(resp *http.Response) time.Duration {
	if resp == nil {
		return defaultLimitWait
	}
	h := resp.Header
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if t, err := http.ParseTime(v); err == nil {
			return g.clamp(time.Until(t), "Retry-After "+v)
		}
		return g.clamp(seconds(v), "Retry-After "+v)
	}
	if h.Get("X-RateLimit-Remaining") == "0" {
		if v := h.Get("X-RateLimit-Reset"); v != "" {
			if s, err := strconv.ParseInt(v, 10, 64); err == nil && s > 0 && s < 1<<40 {
				return g.clamp(time.Until(time.Unix(s, 0))+time.Second, "X-RateLimit-Reset "+v)
			}
			return g.clamp(-1, "X-RateLimit-Reset "+v)
		}
	}
	return defaultLimitWait
}

// seconds reads a count of seconds without overflowing: -1 when it is not a number, a
// huge value when it would not fit a Duration.
func seconds(v string) time.Duration {
	s, err := strconv.ParseInt(v, 10, 64)
	switch {
	case err != nil && errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(v, "-"):
		return time.Duration(1<<63 - 1)
	case err != nil:
		return -1
	case s > int64((1<<63-1)/time.Second):
		return time.Duration(1<<63 - 1)
	}
	return time.Duration(s) * time.Second
}

// clamp keeps a wait GitHub asked for within [1s, MaxWait]. A negative one means a header
// that could not be read: it gets GitHub's default advice. Both cases are logged.
func (g *GitHub) clamp(d time.Duration, told string) time.Duration {
	maxWait := durOr(g.MaxWait, DefaultGitHubMaxWait)
	switch {
	case d < 0:
		g.log().Warn("github: unreadable wait, waiting the default", "told", told, "wait", defaultLimitWait)
		return min(defaultLimitWait, maxWait)
	case d > maxWait:
		g.log().Warn("github: asked to wait longer than the maximum, clamped", "told", told, "asked", d.Round(time.Second), "wait", maxWait)
		return maxWait
	case d < time.Second:
		return time.Second
	}
	return d
}

func (g *GitHub) pause(ctx context.Context, d time.Duration) error {
	if g.sleep != nil {
		return g.sleep(ctx, d)
	}
	return httpclient.Sleep(ctx, d)
}

// status is the HTTP status of a go-github error, 0 when there is none.
func status(err error) int {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	return 0
}

// explain adds to a failure no retry fixes what the host can do about it.
func (g *GitHub) explain(err error) error {
	if err == nil {
		return nil
	}
	var pe *permanentError
	if errors.As(err, &pe) {
		return pe.err
	}
	switch status(err) {
	case http.StatusUnauthorized:
		return fmt.Errorf("GitHub rejected the token (401): GITHUB_TOKEN is wrong, expired or revoked: %w", err)
	case http.StatusForbidden:
		return fmt.Errorf("GitHub refused (403): the token may not write to %s/%s: %s: %w", g.Owner, g.Repo, scopeHint, err)
	case http.StatusNotFound:
		return fmt.Errorf("GitHub found nothing (404): check owner %q, repo %q and branch %q; a private repository also answers 404 to a token that cannot see it: %w", g.Owner, g.Repo, g.Branch, err)
	case http.StatusConflict:
		return fmt.Errorf("GitHub reports a conflict (409) in %s/%s: the repository is empty, archived, being created or moved, or another writer holds branch %q; "+
			"check the repository on github.com (an archived one must be unarchived); the next cycle retries: %w", g.Owner, g.Repo, g.Branch, err)
	case http.StatusUnprocessableEntity:
		var er *github.ErrorResponse
		msg := ""
		if errors.As(err, &er) {
			msg = strings.ToLower(er.Message)
		}
		if strings.Contains(msg, "protected branch") || strings.Contains(msg, "rule violation") || strings.Contains(msg, "ruleset") {
			return fmt.Errorf("branch %q of %s/%s is protected (422): GitHub refuses pushes that skip its rules (required reviews, status checks, signed commits); "+
				"publish to a branch of its own (github.branch: leaderboards), or let this token's pushes bypass the protection or ruleset: %w", g.Branch, g.Owner, g.Repo, err)
		}
		return fmt.Errorf("GitHub refused the request as invalid (422) in %s/%s, branch %q, path %q: %w", g.Owner, g.Repo, g.Branch, g.Dir, err)
	}
	return err
}
