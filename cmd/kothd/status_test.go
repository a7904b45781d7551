package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/scraper"
	"github.com/kothd/kothd/store"
)

// status answers a participant's "why is my bot not in?" and a host's "what happened?" from
// the store: a failed last run next to the board's run, a failed publication with its
// reason, entered and refused answers with reasons, pending ones, and the next run.
func TestStatusTellsWhatHappened(t *testing.T) {
	cfgPath := testConfig(t, "timezone: UTC\n")
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(cfg.DataDir, "kothd.db"))
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Date(2026, 3, 1, 4, 0, 0, 0, time.UTC)
	st.SetClock(func() time.Time { return clock })
	subs := []scraper.Submission{
		{AnswerID: 11, Author: "Ann", Title: "GoodBot", Language: "python3", Files: []scraper.File{{Name: "bot.py", Content: "class GoodBot(Bot): pass"}}},
		{AnswerID: 12, Author: "Bo", Title: "Broken", Language: "python3", Files: []scraper.File{{Name: "bot.py", Content: "class Broken(Bot): x"}}},
		{AnswerID: 13, Author: "Cy", Title: "Prose", Reject: "no code block in the answer"},
		{AnswerID: 14, Author: "Di", Title: "Late", Language: "python3", Files: []scraper.File{{Name: "bot.py", Content: "class Late(Bot): pass"}}},
	}
	if _, err := st.RecordAnswers(ctx, "forty", 177765, subs); err != nil {
		t.Fatal(err)
	}
	for _, b := range []struct {
		id                   int64
		name, status, reason string
	}{
		{11, "GoodBot", "ok", ""},
		{12, "Broken", "failed validation", "crash: NameError: name 'x' is not defined\nin: make_throw([0, 0], False)"},
		{13, "Prose", "rejected", "no code block in the answer"},
	} {
		if err := st.SetBotStatus(ctx, "forty", b.id, b.name, b.status, b.reason); err != nil {
			t.Fatal(err)
		}
	}
	good, err := st.StartRun(ctx, "forty", 42, 1024, "set", 100)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.FinishRun(ctx, good, &engine.Result{Games: 100}, nil); err != nil {
		t.Fatal(err)
	}
	if err := st.RecordPublication(ctx, "forty", good, "leaderboards", "h1", ""); err != nil {
		t.Fatal(err)
	}
	if err := st.RecordPublication(ctx, "forty", good, "github:o/r@main/lb", "h1", "abc123"); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(24 * time.Hour)
	bad, err := st.StartRun(ctx, "forty", 43, 1024, "set2", 100)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.FailRun(ctx, bad, "harness of GoodBot: out of memory"); err != nil {
		t.Fatal(err)
	}
	if err := st.AddEvent(ctx, "forty", store.PublishFailedEvent, 0, "github:o/r@main/lb: 401 Bad credentials: check GITHUB_TOKEN"); err != nil {
		t.Fatal(err)
	}
	st.Close()

	code, out, errOut := kothd(t, "status", "--config", cfgPath, "--challenge", "forty")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"forty:  (question 177765, engine forty)",
		"last run:     run 2 started 2026-03-02 04:00 UTC, failed: harness of GoodBot: out of memory; seed 43",
		"board from:   run 1 started 2026-03-01 04:00 UTC, done; seed 42",
		`next run:     `,
		"published:    leaderboards: ok at 2026-03-01 04:00 UTC, run 1",
		"published:    github:o/r@main/lb: FAILED at 2026-03-02 04:00 UTC: 401 Bad credentials: check GITHUB_TOKEN (last success: 2026-03-01 04:00 UTC)",
		"answers:      4 active, 0 deleted; 1 bots entered, 2 not entered, 1 answers not prepared yet",
		"entered      GoodBot                  answer 11 by Ann, python3",
		"NOT entered  Broken                   answer 12 by Bo: failed validation: crash: NameError: name 'x' is not defined …",
		"NOT entered  Prose                    answer 13 by Cy: rejected: no code block in the answer",
		"pending      Late                     answer 14 by Di: fetched, not built yet",
		"publish-failed github:o/r@main/lb: 401 Bad credentials",
		"new      answer 12: Broken by Bo",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "ruins") {
		t.Errorf("--challenge forty printed another challenge:\n%s", out)
	}
}
