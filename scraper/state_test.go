package scraper_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/scraper"
	"github.com/kothd/kothd/scraper/fakeapi"
	"github.com/kothd/kothd/store"
)

// What the API says that outlives a process is kept in the store (a real SQLite file): a
// new process (a new client over the store opened again) seconds after a ban makes no
// request until the ban ends, honours a backoff, and does not make the filter again.

func openStore(t *testing.T, path string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestBanOutlivesTheProcess(t *testing.T) {
	ctx := context.Background()
	api := fakeapi.New()
	defer api.Close()
	fill(t, api, 115303, 2)
	path := filepath.Join(t.TempDir(), "kothd.db")
	st := openStore(t, path)
	c, clk := newClient(api)
	c.State = st
	api.Fail(fakeapi.Fault{ErrorID: 502, ErrorName: "throttle_violation", ErrorMessage: "too many requests from this IP, more requests available in 3600 seconds"})
	if _, err := c.Probe(ctx, []int64{115303}); !errors.Is(err, scraper.ErrThrottled) {
		t.Fatalf("err = %v", err)
	}
	st.Close()
	// `kothd once` again, a minute later.
	clk.Advance(time.Minute)
	st = openStore(t, path)
	defer st.Close()
	c2 := scraper.New(api.BaseURL(), "codegolf", "")
	c2.Clock, c2.State = clk, st
	n := api.Requests()
	if _, err := c2.Probe(ctx, []int64{115303}); !errors.Is(err, scraper.ErrThrottled) {
		t.Fatalf("a new process during the ban: err = %v", err)
	}
	if api.Requests() != n {
		t.Fatalf("a new process made %d requests during the ban", api.Requests()-n)
	}
	clk.Advance(time.Hour)
	c3 := scraper.New(api.BaseURL(), "codegolf", "")
	c3.Clock, c3.State = clk, st
	if _, err := c3.Probe(ctx, []int64{115303}); err != nil {
		t.Fatalf("after the ban: %v", err)
	}
}

func TestBackoffOutlivesTheProcess(t *testing.T) {
	ctx := context.Background()
	api := fakeapi.New()
	defer api.Close()
	fill(t, api, 115303, 2)
	st := openStore(t, filepath.Join(t.TempDir(), "kothd.db"))
	defer st.Close()
	c, clk := newClient(api)
	c.State = st
	api.Fail(fakeapi.Fault{Backoff: 900})
	if _, err := c.Probe(ctx, []int64{115303}); err != nil {
		t.Fatal(err)
	}
	c2 := scraper.New(api.BaseURL(), "codegolf", "")
	c2.Clock, c2.State = clk, st
	n := api.Requests()
	if _, err := c2.Probe(ctx, []int64{115303}); !errors.Is(err, scraper.ErrBackoff) || api.Requests() != n {
		t.Fatalf("a new process within the backoff: err = %v, %d requests", err, api.Requests()-n)
	}
	// Another method is not held by this one's backoff.
	if _, err := c2.Answers(ctx, 115303); err != nil {
		t.Fatalf("answers: %v", err)
	}
}

func TestBodyFilterMadeOnce(t *testing.T) {
	ctx := context.Background()
	api := fakeapi.New()
	defer api.Close()
	api.SetQuestion(1, "T", "a body long enough for the site", "a")
	st := openStore(t, filepath.Join(t.TempDir(), "kothd.db"))
	defer st.Close()
	creates := func() int {
		n := 0
		for _, u := range api.Log() {
			if strings.Contains(u, "/filters/create") {
				n++
			}
		}
		return n
	}
	for i := 0; i < 3; i++ { // three processes, each reading the question twice
		c, _ := newClient(api)
		c.State = st
		for j := 0; j < 2; j++ {
			if _, err := c.QuestionMarkdown(ctx, 1); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := creates(); n != 1 {
		t.Fatalf("the filter was made %d times, want once", n)
	}
}

// An HTML error page is said as one, and retried like other 5xx answers, whether or not it
// is compressed.
func TestHTMLErrorPage(t *testing.T) {
	for _, enc := range []string{fakeapi.Identity, fakeapi.Gzip} {
		api := fakeapi.New()
		defer api.Close()
		fill(t, api, 115303, 2)
		api.SetEncoding(enc, enc != fakeapi.Identity)
		page := "<!DOCTYPE html>\n<html><head><title>Service Unavailable</title></head><body>x</body></html>"
		api.Fail(fakeapi.Fault{Status: 502, Body: page})
		c, _ := newClient(api)
		if _, err := c.Answers(context.Background(), 115303); err != nil {
			t.Fatalf("%s: not retried: %v", enc, err)
		}
		api.Fail(fakeapi.Fault{Status: 502, Body: page}, fakeapi.Fault{Status: 502, Body: page})
		c.Retries = 1
		_, err := c.Answers(context.Background(), 115303)
		if err == nil || !strings.Contains(err.Error(), "the API answered HTTP 502 with an HTML page (temporarily unavailable)") || strings.Contains(err.Error(), "flate") {
			t.Errorf("%s: err = %v", enc, err)
		}
	}
}
