package cron_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/cron/crontest"
	"github.com/kothd/kothd/scraper"
)

// fakeAPI serves question 177765 from the bundled snapshot the way the API does, counting
// requests.
func fakeAPI(t *testing.T, requests *atomic.Int64) *httptest.Server {
	page, err := os.ReadFile("../testdata/snapshot/codegolf/177765/answers.1.json")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		switch {
		case strings.HasSuffix(r.URL.Path, "/answers"):
			w.Write(page)
		case strings.HasPrefix(r.URL.Path, "/posts/") && strings.HasSuffix(r.URL.Path, "/revisions"):
			fmt.Fprint(w, `{"items":[],"has_more":false,"quota_max":10000,"quota_remaining":9989}`)
		case strings.HasPrefix(r.URL.Path, "/questions/"):
			fmt.Fprint(w, `{"items":[{"question_id":177765,"title":"A game of dice","answer_count":23,"last_activity_date":1555555555}],"has_more":false,"quota_max":10000,"quota_remaining":9990}`)
		default:
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error_id":400,"error_name":"bad_parameter","error_message":"no such method"}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A second cycle against an unchanged API costs exactly one request: the probe. (The first
// asks for its new answers' revision numbers too: one request per 100 answers.)
func TestUnchangedAPIOneRequest(t *testing.T) {
	t.Parallel()
	var requests atomic.Int64
	srv := fakeAPI(t, &requests)
	cy := withFakeGame(t, crontest.NewCycle(t, t.TempDir()))
	cy.Source = scraper.New(srv.URL, "codegolf", "")
	ctx := context.Background()
	reps, err := cy.RunAll(ctx, "forty", cron.Options{Games: 40})
	if err != nil {
		t.Fatal(err)
	}
	if len(reps) != 1 || reps[0].RunID == 0 {
		t.Fatalf("first cycle did not play: %+v", reps)
	}
	if n := requests.Load(); n != 3 {
		t.Errorf("first cycle made %d requests, want 3 (probe, one page of answers, the new answers' revision numbers)", n)
	}
	requests.Store(0)
	reps, err = cy.RunAll(ctx, "forty", cron.Options{Games: 40})
	if err != nil {
		t.Fatal(err)
	}
	if n := requests.Load(); n != 1 {
		t.Errorf("second cycle made %d requests, want exactly 1", n)
	}
	if reps[0].RunID != 0 || reps[0].Skipped == "" {
		t.Errorf("second cycle played although nothing changed: %+v", reps[0])
	}
}

// A question the API no longer returns keeps its last good data: its answers are not
// all retired as deleted.
func TestQuestionGoneKeepsData(t *testing.T) {
	t.Parallel()
	var requests atomic.Int64
	srv := fakeAPI(t, &requests)
	cy := withFakeGame(t, crontest.NewCycle(t, t.TempDir()))
	cy.Source = scraper.New(srv.URL, "codegolf", "")
	ctx := context.Background()
	if _, err := cy.RunAll(ctx, "forty", cron.Options{Games: 20}); err != nil {
		t.Fatal(err)
	}
	gone := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"items":[],"has_more":false,"quota_max":10000,"quota_remaining":9980}`)
	}))
	defer gone.Close()
	cy.Source = scraper.New(gone.URL, "codegolf", "")
	reps, err := cy.RunAll(ctx, "forty", cron.Options{Games: 20})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(reps[0].Skipped, "not found") {
		t.Errorf("skipped = %q", reps[0].Skipped)
	}
	st, _ := cy.Store.Status(ctx, "forty")
	if st.Deleted != 0 || st.Answers == 0 {
		t.Errorf("answers retired although only the question vanished: %+v", st)
	}
}
