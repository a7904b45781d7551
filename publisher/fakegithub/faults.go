package fakegithub

import (
	"fmt"
	"strconv"
	"time"
)

// Fault is a scripted answer to one request matching Method and Path, in place of the
// repository's.
type Fault struct {
	Method string // GET, POST, PATCH, PUT; "" for any
	Path   string // prefix of the path after /repos/{owner}/{repo}, e.g. "/git/trees"; "" for any
	Status int
	Body   string
	Header map[string]string
	// Race: someone else pushes a commit to the branch just before the request is served
	// normally (a branch that moved under the publisher).
	Race string
	// Hangup closes the connection without an answer (a network failure).
	Hangup bool
	// Hang never answers: the request waits until the client gives up.
	Hang bool
}

// On restricts the fault to requests with this method and path prefix.
func (f Fault) On(method, path string) Fault {
	f.Method, f.Path = method, path
	return f
}

// Documentation addresses GitHub puts in error bodies. go-github tells a secondary rate
// limit from other 403s by the suffix of documentation_url.
const (
	docsRateLimits = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"
	docsSecondary  = "https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"
)

func body(message, doc string) string {
	return fmt.Sprintf(`{"message":%q,"documentation_url":%q}`, message, doc)
}

// ServerError is a 5xx: GitHub's front end answers 502/504 with an HTML page, the API
// itself 500 with a JSON message.
func ServerError(status int) Fault {
	if status == 500 {
		return Fault{Status: 500, Body: `{"message":"Server Error"}`}
	}
	return Fault{Status: status, Header: map[string]string{"Content-Type": "text/html"},
		Body: fmt.Sprintf("<html><body><h1>%d</h1>\nWe couldn't respond to your request in time. Sorry about that.</body></html>", status)}
}

// PrimaryRateLimit is the answer once the hourly quota is spent: 403 with
// X-RateLimit-Remaining 0 and the reset time (what go-github turns into *RateLimitError).
func PrimaryRateLimit(reset time.Time) Fault {
	return Fault{Status: 403,
		Header: map[string]string{"X-RateLimit-Limit": "5000", "X-RateLimit-Remaining": "0", "X-RateLimit-Used": "5000",
			"X-RateLimit-Reset": strconv.FormatInt(reset.Unix(), 10), "X-RateLimit-Resource": "core"},
		Body: body("API rate limit exceeded for user ID 1. If you reach out to GitHub Support for help, please include the request ID 0000:1111:2222:3333:4444.", docsRateLimits)}
}

// SecondaryRateLimit is the answer to too many requests at once: 403 with Retry-After
// (seconds, as text: a test may send anything) and the documentation address go-github
// keys *AbuseRateLimitError on.
func SecondaryRateLimit(retryAfter string) Fault {
	h := map[string]string{"X-RateLimit-Limit": "5000", "X-RateLimit-Remaining": "4990", "X-RateLimit-Used": "10",
		"X-RateLimit-Reset": strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10), "X-RateLimit-Resource": "core"}
	if retryAfter != "" {
		h["Retry-After"] = retryAfter
	}
	return Fault{Status: 403, Header: h,
		Body: body("You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID 0000:1111:2222:3333:4444.", docsSecondary)}
}

// TooManyRequests is a plain 429 with Retry-After, which go-github v60 does not classify
// (an *ErrorResponse).
func TooManyRequests(retryAfter string) Fault {
	h := map[string]string{}
	if retryAfter != "" {
		h["Retry-After"] = retryAfter
	}
	return Fault{Status: 429, Header: h, Body: body("Too many requests", docsRateLimits)}
}

// Moved: someone else pushes to the branch just before our update of it, which then
// fails with 422 "Update is not a fast forward".
func Moved(branch string) Fault {
	return Fault{Method: "PATCH", Path: "/git/refs/", Race: branch}
}

// Hangup drops the connection without answering.
func Hangup() Fault { return Fault{Hangup: true} }

// Hang holds the request without ever answering.
func Hang() Fault { return Fault{Hang: true} }
