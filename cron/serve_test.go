package cron_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/cron/crontest"
)

// The daemon plays at start a challenge that has no board yet, logs the tick, the run,
// the publication and the next run, then runs its schedule (every second here: a quiet
// tick that finds nothing new), and stops cleanly when told to.
func TestServeStartUpAndTicks(t *testing.T) {
	t.Parallel()
	cy := withFakeGame(t, crontest.NewCycle(t, t.TempDir()))
	var logs cron.SyncBuffer
	cy.Log = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	ch, _ := cy.Config.Challenge("forty")
	ch.Games = 20
	ch.Schedule = "* * * * * *" // every second
	cy.Config.Challenges = []config.Challenge{*ch}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- cron.Serve(ctx, cy) }()
	cron.WaitFor(t, "a run at start", 90*time.Second, func() bool {
		run, err := cy.Store.LastRun(context.Background(), "forty")
		return err == nil && run != nil
	})
	cron.WaitFor(t, "a scheduled quiet tick", 30*time.Second, func() bool {
		return strings.Contains(logs.String(), `msg=tick challenges=[forty] why=scheduled`) &&
			strings.Contains(logs.String(), `msg="nothing played" challenge=forty`)
	})
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("Serve did not stop after cancel")
	}
	out := logs.String()
	for _, want := range []string{
		`msg="due at start" challenge=forty why="no finished run yet"`,
		`msg=tick challenges=[forty] why="start-up: no board yet or a scheduled run was missed"`,
		`msg=played challenge=forty run=1`,
		`msg=published challenge=forty run=1 target=`,
		`msg="next run" challenge=forty at=`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	// The board says when the schedule plays next (every second here).
	var b struct {
		Run struct {
			Date    time.Time  `json:"date"`
			NextRun *time.Time `json:"next_run"`
		} `json:"run"`
	}
	raw, err := os.ReadFile(filepath.Join(cy.Config.OutputDir, "forty.json"))
	if err == nil {
		err = json.Unmarshal(raw, &b)
	}
	if err != nil || b.Run.NextRun == nil || !b.Run.NextRun.After(b.Run.Date) {
		t.Errorf("board's next run %v after its run of %v (%v)", b.Run.NextRun, b.Run.Date, err)
	}
	md, _ := os.ReadFile(filepath.Join(cy.Config.OutputDir, "forty.md"))
	if want := "Next run: " + b.Run.NextRun.UTC().Format("2006-01-02 15:04") + " UTC"; b.Run.NextRun != nil && !strings.Contains(string(md), want) {
		t.Errorf("page lacks %q", want)
	}
}
