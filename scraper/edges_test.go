package scraper_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/scraper"
	"github.com/kothd/kothd/scraper/fakeapi"
)

// The API's edge values: absurd pauses, a has_more that never ends, answers of another
// question.

func logTo(c *scraper.Client) *bytes.Buffer {
	var b bytes.Buffer
	c.Log = slog.New(slog.NewTextHandler(&b, nil))
	return &b
}

// A backoff of 10^10 s overflows a time.Duration into the past: it must be clamped and
// honoured, not ignored.
func TestAbsurdBackoffIsClampedAndHonoured(t *testing.T) {
	api := fakeapi.New()
	defer api.Close()
	fill(t, api, 177765, 2)
	c, clk := newClient(api)
	log := logTo(c)
	api.Fail(fakeapi.Fault{Backoff: 10_000_000_000})
	if _, err := c.Answers(context.Background(), 177765); err != nil {
		t.Fatal(err)
	}
	_, err := c.Answers(context.Background(), 177765)
	if !errors.Is(err, scraper.ErrBackoff) || !strings.Contains(err.Error(), clk.Now().Add(48*time.Hour).UTC().Format(time.RFC3339)) {
		t.Fatalf("err = %v, want ErrBackoff for 48h", err)
	}
	if api.Requests() != 1 {
		t.Errorf("%d requests: the backoff was not honoured", api.Requests())
	}
	if !strings.Contains(log.String(), "clamped") || !strings.Contains(log.String(), "10000000000") {
		t.Errorf("no log of the clamp:\n%s", log)
	}
}

// A throttle_violation of 10^10 s (or more digits than an int64 holds) bans the client for
// the clamped time, not for a moment in the past.
func TestAbsurdThrottleIsClampedAndHonoured(t *testing.T) {
	for _, secs := range []string{"10000000000", "99999999999999999999999"} {
		api := fakeapi.New()
		fill(t, api, 177765, 1)
		c, clk := newClient(api)
		log := logTo(c)
		api.Fail(fakeapi.Fault{ErrorID: 502, ErrorName: "throttle_violation", ErrorMessage: "too many requests from this IP, more requests available in " + secs + " seconds"})
		if _, err := c.Answers(context.Background(), 177765); !errors.Is(err, scraper.ErrThrottled) {
			t.Fatalf("%s: err = %v", secs, err)
		}
		clk.Advance(47 * time.Hour)
		_, err := c.Answers(context.Background(), 177765)
		if !errors.Is(err, scraper.ErrThrottled) || api.Requests() != 1 {
			t.Errorf("%s: 47 h later: err = %v after %d requests, want the ban to hold", secs, err, api.Requests())
		}
		clk.Advance(2 * time.Hour)
		if got, err := c.Answers(context.Background(), 177765); err != nil || len(got) != 1 {
			t.Errorf("%s: 49 h later: %d answers, err %v", secs, len(got), err)
		}
		if !strings.Contains(log.String(), "clamped") {
			t.Errorf("%s: no log of the clamp:\n%s", secs, log)
		}
		api.Close()
	}
}

// has_more for ever stops where the question's answer_count says the answers end, with a
// clear error, after a handful of requests instead of a thousand.
func TestEndlessHasMoreStops(t *testing.T) {
	for _, tc := range []struct {
		mode     string
		probe    bool // a Probe (as every cycle makes) told the count first
		requests int
		want     string
	}{
		// 150 answers: pages 1-2 are real, later ones repeat page 2. Without a count, five
		// pages are fetched on has_more alone, then the count (1 request) says 150
		// answers fill at most 3 pages.
		{fakeapi.EndlessRepeat, false, 5 + 1, "answer_count allows 3 pages of 100"},
		// With the cycle's probe, paging stops after page 3.
		{fakeapi.EndlessRepeat, true, 1 + 3, "answer_count allows 3 pages of 100"},
		{fakeapi.EndlessEmpty, false, 3, "page 3 is empty but says has_more"},
	} {
		api := fakeapi.New()
		fill(t, api, 177765, 150)
		api.SetEndless(tc.mode)
		c, _ := newClient(api)
		if tc.probe {
			if _, err := c.Probe(context.Background(), []int64{177765}); err != nil {
				t.Fatal(err)
			}
		}
		_, err := c.Answers(context.Background(), 177765)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "stopping") {
			t.Errorf("%s: err = %v", tc.mode, err)
		}
		if api.Requests() != tc.requests {
			t.Errorf("%s: %d requests, want %d: %q", tc.mode, api.Requests(), tc.requests, api.Log())
		}
		api.Close()
	}
	// A well-behaved API costs no count request when one page holds everything.
	api := fakeapi.New()
	defer api.Close()
	fill(t, api, 177765, 99)
	c, _ := newClient(api)
	if got, err := c.Answers(context.Background(), 177765); err != nil || len(got) != 99 || api.Requests() != 1 {
		t.Errorf("%d answers, %v, %d requests", len(got), err, api.Requests())
	}
}

// An answer whose question_id is not the question asked is dropped, with a log line.
func TestAnswerOfAnotherQuestionIsDropped(t *testing.T) {
	api := fakeapi.New()
	defer api.Close()
	fill(t, api, 177765, 2)
	if err := api.Put(177765, answer(169235, 169236, 1549000500, "Elsewhere", botBody("Stray"))); err != nil {
		t.Fatal(err)
	}
	c, _ := newClient(api)
	log := logTo(c)
	got, err := c.Answers(context.Background(), 177765)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d answers, want the 2 of question 177765", len(got))
	}
	for _, a := range got {
		if a.QuestionID != 177765 {
			t.Errorf("answer %d of question %d kept", a.AnswerID, a.QuestionID)
		}
	}
	if !strings.Contains(log.String(), "answer of another question") || !strings.Contains(log.String(), "169236") {
		t.Errorf("no log line:\n%s", log)
	}
}
