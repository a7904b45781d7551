package publisher

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kothd/kothd/internal/httpclient"
	"github.com/kothd/kothd/internal/httpclient/httpclienttest"
	"github.com/kothd/kothd/publisher/fakegithub"
)

// sleeps records the waits of a sink instead of waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
	return ctx.Err()
}

func (s *sleeps) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// newTestGitHub returns a sink on a fake GitHub, its recorded waits and its log.
func newTestGitHub(t *testing.T) (*GitHub, *fakegithub.Server, *sleeps, *bytes.Buffer) {
	t.Helper()
	gh := fakegithub.New()
	t.Cleanup(gh.Close)
	gh.SetToken("ghp_T0kenThatMustNotLeak")
	g, err := NewGitHub(gh.Owner, gh.Repo, "main", "leaderboards", gh.Token(), gh.BaseURL())
	if err != nil {
		t.Fatal(err)
	}
	sl := &sleeps{}
	g.sleep = sl.sleep
	var log bytes.Buffer
	g.Log = slog.New(slog.NewTextHandler(&log, nil))
	return g, gh, sl, &log
}

var board = map[string][]byte{"forty.md": []byte("# table\n"), "forty.json": []byte("{}\n")}

func TestGitHubPublishesOneCommit(t *testing.T) {
	g, gh, _, _ := newTestGitHub(t)
	ctx := context.Background()
	c1, err := g.Publish(ctx, board, "forty: run 1")
	if err != nil {
		t.Fatal(err)
	}
	if gh.Head("main") != c1 {
		t.Fatalf("head %s, published %s", gh.Head("main"), c1)
	}
	files := gh.Files("main")
	if files["leaderboards/forty.md"] != "# table\n" || files["leaderboards/forty.json"] != "{}\n" || files["README.md"] != "hello" {
		t.Errorf("tree after publish: %v", files)
	}
	if h := gh.History("main"); !slices.Equal(h, []string{"forty: run 1", "initial"}) {
		t.Errorf("history %q", h)
	}
	// Same files again: no new commit.
	c2, err := g.Publish(ctx, board, "forty: run 2")
	if err != nil || c2 != c1 || len(gh.History("main")) != 2 {
		t.Errorf("republishing the same files made a commit: %s %v %q", c2, err, gh.History("main"))
	}
}

func TestGitHubRetriesServerAndNetworkErrors(t *testing.T) {
	g, gh, sl, _ := newTestGitHub(t)
	gh.Fail(fakegithub.ServerError(502).On("GET", "/git/ref/"), fakegithub.ServerError(500).On("POST", "/git/trees"),
		fakegithub.Hangup().On("POST", "/git/commits"), fakegithub.ServerError(504).On("PATCH", ""))
	c, err := g.Publish(context.Background(), board, "forty: run 1")
	if err != nil {
		t.Fatal(err)
	}
	if gh.Head("main") != c || gh.Files("main")["leaderboards/forty.md"] != "# table\n" {
		t.Errorf("not published after retries")
	}
	if got, want := sl.all(), []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second}; !slices.Equal(got, want) {
		t.Errorf("backoff %v, want %v", got, want)
	}
}

func TestGitHubGivesUpOnPersistentServerErrors(t *testing.T) {
	g, gh, sl, _ := newTestGitHub(t)
	for range 20 {
		gh.Fail(fakegithub.ServerError(502))
	}
	_, err := g.Publish(context.Background(), board, "forty: run 1")
	if err == nil || !strings.Contains(err.Error(), "giving up after 8 attempts") || !strings.Contains(err.Error(), "502") {
		t.Fatalf("err = %v", err)
	}
	if n := len(gh.Requests()); n != 8 {
		t.Errorf("%d requests, want 8", n)
	}
	if d := sl.all(); len(d) != 7 || d[6] != time.Minute {
		t.Errorf("waits %v: want 7, doubling to a minute", d)
	}
}

func TestGitHubWaitsOutRateLimits(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault fakegithub.Fault
		min   time.Duration
		max   time.Duration
	}{
		{"primary (RateLimitError)", fakegithub.PrimaryRateLimit(time.Now().Add(40 * time.Second)), 38 * time.Second, 42 * time.Second},
		{"secondary (AbuseRateLimitError)", fakegithub.SecondaryRateLimit("17"), 17 * time.Second, 17 * time.Second},
		{"secondary without Retry-After", fakegithub.SecondaryRateLimit(""), time.Minute, time.Minute},
		{"primary as 429 (ErrorResponse)", primary429(time.Now().Add(20 * time.Second)), 18 * time.Second, 22 * time.Second},
		{"plain 429 with Retry-After", fakegithub.TooManyRequests("5"), 5 * time.Second, 5 * time.Second},
		{"429 with an HTTP date", fakegithub.TooManyRequests(time.Now().Add(90 * time.Second).UTC().Format(timeFormatHTTP)), 85 * time.Second, 91 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, gh, sl, _ := newTestGitHub(t)
			gh.Fail(tc.fault.On("POST", "/git/trees"))
			if _, err := g.Publish(context.Background(), board, "forty: run 1"); err != nil {
				t.Fatal(err)
			}
			d := sl.all()
			if len(d) != 1 || d[0] < tc.min || d[0] > tc.max {
				t.Errorf("waited %v, want one wait in [%s, %s]", d, tc.min, tc.max)
			}
			if gh.Files("main")["leaderboards/forty.md"] != "# table\n" {
				t.Error("not published after the wait")
			}
		})
	}
}

const timeFormatHTTP = "Mon, 02 Jan 2006 15:04:05 GMT"

// primary429 is a primary rate limit as GitHub also sends it: 429, which go-github v60
// does not turn into a RateLimitError; X-RateLimit-Reset still says when.
func primary429(reset time.Time) fakegithub.Fault {
	f := fakegithub.PrimaryRateLimit(reset)
	f.Status = 429
	return f
}

func TestGitHubClampsAbsurdWaits(t *testing.T) {
	// 10^10 seconds overflows a time.Duration: clamped to MaxWait, and said so.
	g, gh, sl, log := newTestGitHub(t)
	g.Deadline, g.MaxWait = time.Hour, 2*time.Minute
	gh.Fail(fakegithub.SecondaryRateLimit("10000000000"), fakegithub.TooManyRequests("99999999999999999999999"),
		fakegithub.PrimaryRateLimit(time.Unix(1e10, 0)))
	if _, err := g.Publish(context.Background(), board, "forty: run 1"); err != nil {
		t.Fatal(err)
	}
	if d := sl.all(); !slices.Equal(d, []time.Duration{2 * time.Minute, 2 * time.Minute, 2 * time.Minute}) {
		t.Errorf("waits %v, want three clamped to 2m", d)
	}
	if n := strings.Count(log.String(), "clamped"); n != 3 {
		t.Errorf("%d clamp log lines:\n%s", n, log)
	}

	// With the default bounds, a wait past the publication's deadline fails at once.
	g, gh, sl, _ = newTestGitHub(t)
	gh.Fail(fakegithub.PrimaryRateLimit(time.Now().Add(50 * time.Minute)))
	_, err := g.Publish(context.Background(), board, "forty: run 1")
	if err == nil || !strings.Contains(err.Error(), "would pass this publication's deadline") || !strings.Contains(err.Error(), "next cycle retries") {
		t.Fatalf("err = %v", err)
	}
	if d := sl.all(); len(d) != 0 {
		t.Errorf("waited %v before giving up", d)
	}
}

func TestGitHubRereadsAMovedBranch(t *testing.T) {
	g, gh, _, _ := newTestGitHub(t)
	gh.Fail(fakegithub.Moved("main"))
	c, err := g.Publish(context.Background(), board, "forty: run 1")
	if err != nil {
		t.Fatal(err)
	}
	if h := gh.History("main"); gh.Head("main") != c || !slices.Equal(h, []string{"forty: run 1", "someone else's commit", "initial"}) {
		t.Errorf("history %q: our commit must go on top of theirs", h)
	}
	if f := gh.Files("main"); f["OTHER.md"] != "theirs" || f["leaderboards/forty.json"] != "{}\n" {
		t.Errorf("files %v", f)
	}
}

func TestGitHubFirstCommitInEmptyRepository(t *testing.T) {
	g, gh, _, _ := newTestGitHub(t)
	gh.Empty()
	if err := g.CheckWrite(context.Background()); err != nil {
		t.Fatalf("an empty repository is writable: %v", err)
	}
	c, err := g.Publish(context.Background(), board, "forty: run 1")
	if err != nil {
		t.Fatal(err)
	}
	f := gh.Files("main")
	if gh.Head("main") != c || len(f) != 2 || f["leaderboards/forty.md"] != "# table\n" || f["leaderboards/forty.json"] != "{}\n" {
		t.Errorf("head %s (published %s), files %v", gh.Head("main"), c, f)
	}
	if !slices.Contains(gh.Requests(), "PUT /repos/o/r/contents/leaderboards/forty.json") {
		t.Errorf("no contents API call: %q", gh.Requests())
	}
	// One commit per publication, the first too (it was two: the contents API's file,
	// then the rest).
	if h := gh.History("main"); len(h) != 1 || h[0] != "forty: run 1" {
		t.Errorf("history of the first publication: %q", h)
	}
	if _, err := g.Publish(context.Background(), map[string][]byte{"forty.md": []byte("# table 2\n")}, "forty: run 2"); err != nil {
		t.Fatal(err)
	}
	if h := gh.History("main"); len(h) != 2 || h[0] != "forty: run 2" {
		t.Errorf("history after the second publication: %q", h)
	}
}

// A protected branch and a conflict are explained with what to do, not passed on raw, and
// not retried within the publication.
func TestGitHubExplainsProtectedBranchAndConflict(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(*fakegithub.Server)
		want  []string
	}{
		{"protected branch", func(s *fakegithub.Server) { s.SetProtected("main", true) },
			[]string{"branch \"main\" of o/r is protected (422)", "github.branch", "Protected branch update failed"}},
		{"conflict", func(s *fakegithub.Server) {
			s.Fail(fakegithub.Fault{Status: 409, Body: `{"message":"Conflict"}`}.On("PATCH", "/git/refs"))
		}, []string{"conflict (409) in o/r", "archived", "Conflict"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, gh, sl, _ := newTestGitHub(t)
			tc.setup(gh)
			_, err := g.Publish(context.Background(), board, "forty: run 1")
			if err == nil {
				t.Fatal("published")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q: %v", w, err)
				}
			}
			if len(sl.all()) != 0 {
				t.Errorf("retried (waits %v)", sl.all())
			}
			if h := gh.History("main"); len(h) != 1 {
				t.Errorf("history %q", h)
			}
		})
	}
}

func TestGitHubExplainsWhatNoRetryFixes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(*fakegithub.Server, *GitHub)
		want  []string // in Publish's and CheckWrite's errors
	}{
		{"bad token", func(s *fakegithub.Server, g *GitHub) { s.SetToken("another") }, []string{"401", "GITHUB_TOKEN is wrong, expired or revoked", "Bad credentials"}},
		{"read-only token", func(s *fakegithub.Server, _ *GitHub) { s.SetPush(false) }, []string{"Contents permission set to Read and write", "repo scope"}},
		{"private repository", func(s *fakegithub.Server, _ *GitHub) { s.SetHidden(true) }, []string{"404", `repo "r"`, "private repository"}},
		{"wrong repository", func(_ *fakegithub.Server, g *GitHub) { g.Repo = "typo" }, []string{"404", `repo "typo"`}},
		{"wrong branch", func(_ *fakegithub.Server, g *GitHub) { g.Branch = "nope" }, []string{`"nope"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, gh, sl, _ := newTestGitHub(t)
			tc.setup(gh, g)
			for _, call := range []func() error{
				func() error { return g.CheckWrite(context.Background()) },
				func() error { _, err := g.Publish(context.Background(), board, "forty: run 1"); return err },
			} {
				before := len(gh.Requests())
				err := call()
				if err == nil {
					t.Fatal("no error")
				}
				for _, w := range tc.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error lacks %q: %v", w, err)
					}
				}
				if strings.Contains(err.Error(), g.token) {
					t.Errorf("the token is in the error: %v", err)
				}
				if n := len(gh.Requests()) - before; n > 3 {
					t.Errorf("%d requests: a permanent failure is not retried", n)
				}
			}
			if len(sl.all()) != 0 {
				t.Errorf("waited %v for a permanent failure", sl.all())
			}
			if h := gh.History("main"); len(h) != 1 {
				t.Errorf("history %q", h)
			}
		})
	}
}

func TestGitHubCheckWrite(t *testing.T) {
	g, gh, _, _ := newTestGitHub(t)
	if err := g.CheckWrite(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r := gh.Requests(); !slices.Equal(r, []string{"GET /repos/o/r", "GET /repos/o/r/git/ref/heads/main", "POST /repos/o/r/git/blobs"}) {
		t.Errorf("requests %q", r)
	}
	if len(gh.History("main")) != 1 {
		t.Error("the check changed the branch")
	}
}

func TestGitHubUnresponsiveFailsWithinTheDeadline(t *testing.T) {
	g, err := NewGitHub("o", "r", "main", "", "tok", httpclienttest.Unresponsive(t))
	if err != nil {
		t.Fatal(err)
	}
	g.HTTP = httpclient.New(httpclient.Timeouts{ResponseHeader: 300 * time.Millisecond})
	g.Deadline = 2 * time.Second
	for name, call := range map[string]func() error{
		"publish":     func() error { _, err := g.Publish(context.Background(), board, "m"); return err },
		"check write": func() error { return g.CheckWrite(context.Background()) },
	} {
		start := time.Now()
		err := call()
		took := time.Since(start)
		if err == nil || !strings.Contains(err.Error(), "deadline of 2s") || !strings.Contains(err.Error(), "timeout awaiting response headers") {
			t.Errorf("%s: err = %v", name, err)
		}
		if took > 4*time.Second {
			t.Errorf("%s took %s with a deadline of 2s", name, took)
		}
	}
}

func TestGitHubSinkNeedsToken(t *testing.T) {
	if _, err := NewGitHub("o", "r", "main", "", "", ""); err == nil || !strings.Contains(err.Error(), "GITHUB_TOKEN") {
		t.Fatalf("err = %v", err)
	}
}

// github.path as a host writes it ("/leaderboards/", "./leaderboards") is the folder
// leaderboards: GitHub refuses a tree path with a leading slash or an empty component, so
// before, every publication failed after a preflight that passed.
func TestGitHubPathIsCleaned(t *testing.T) {
	for _, dir := range []string{"/leaderboards/", "./leaderboards", "leaderboards//"} {
		gh := fakegithub.New()
		g, err := NewGitHub(gh.Owner, gh.Repo, "main", dir, gh.Token(), gh.BaseURL())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := g.Publish(context.Background(), board, "forty: run 1"); err != nil {
			t.Errorf("path %q: %v", dir, err)
		} else if gh.Files("main")["leaderboards/forty.md"] != "# table\n" {
			t.Errorf("path %q: tree %v", dir, gh.Files("main"))
		}
		gh.Close()
	}
	for _, dir := range []string{"", "/", "."} {
		g, err := NewGitHub("o", "r", "main", dir, "t", "")
		if err != nil || g.Dir != "" {
			t.Errorf("path %q: dir %q, %v; want the root", dir, g.Dir, err)
		}
	}
	if _, err := NewGitHub("o", "r", "main", "../elsewhere", "t", ""); err == nil {
		t.Error("a path leaving the repository was accepted")
	}
}
