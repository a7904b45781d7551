package cron

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/engine"
)

// syncBuffer is a log destination the daemon's goroutines and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func waitFor(t *testing.T, what string, d time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, d)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// What is due at start: no finished run, or a scheduled time passed since the last attempt.
func TestDueAtStart(t *testing.T) {
	cy := testCycle(t, t.TempDir())
	ctx := context.Background()
	day := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	cy.Store.SetClock(func() time.Time { return day })
	cy.Config.Challenges = cy.Config.Challenges[2:4] // forty, ruins
	sched, err := config.ParseSchedule("0 4 * * *", time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	d := &daemon{c: cy, loc: time.UTC, sem: make(chan struct{}, 1),
		scheds: map[string]robfigSchedule{"forty": sched, "ruins": sched}}
	if _, err := cy.Store.RecordAnswers(ctx, "forty", 177765, nil); err != nil {
		t.Fatal(err)
	}
	id, err := cy.Store.StartRun(ctx, "forty", 1, 1, "x", 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := cy.Store.FinishRun(ctx, id, &engine.Result{}, nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		now  time.Time
		want string
	}{
		{day.Add(10 * time.Hour), "ruins"},             // 20:00: forty ran today after 04:00; ruins has no board
		{day.Add(17*time.Hour + time.Minute), "ruins"}, // 03:01 next day: 04:00 not yet come
		{day.Add(19 * time.Hour), "forty,ruins"},       // 05:00 next day: forty missed 04:00
	} {
		due, err := d.due(ctx, tc.now)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(due, ","); got != tc.want {
			t.Errorf("due at %s: %q, want %q", tc.now, got, tc.want)
		}
	}
}

// At most max_concurrent_runs cycles run at once: a tick waits for a free slot.
func TestTickWaitsForARunSlot(t *testing.T) {
	cy := testCycle(t, t.TempDir())
	var logs syncBuffer
	cy.Log = slog.New(slog.NewTextHandler(&logs, nil))
	d := &daemon{c: cy, loc: time.UTC, sem: make(chan struct{}, 1), scheds: map[string]robfigSchedule{}}
	d.sem <- struct{}{} // a cycle is running
	finished := make(chan struct{})
	go func() { d.tick(context.Background(), []string{"nosuch"}, "test"); close(finished) }()
	time.Sleep(300 * time.Millisecond)
	if logs.String() != "" {
		t.Fatalf("a tick started while the only run slot was taken:\n%s", logs.String())
	}
	<-d.sem
	select {
	case <-finished:
	case <-time.After(30 * time.Second):
		t.Fatal("the tick did not run once the slot was free")
	}
	// It ran: a challenge not in the config (as after a reload that removed it) is skipped.
	if !strings.Contains(logs.String(), "not in the config any more") || !strings.Contains(logs.String(), "challenge=nosuch") {
		t.Errorf("log: %s", logs.String())
	}
}

// A long run logs its progress (games, rate, ETA) every ProgressLog; without it, nothing.
func TestProgressLogged(t *testing.T) {
	for _, every := range []time.Duration{0, 5 * time.Millisecond} {
		var logs syncBuffer
		cy := &Cycle{Log: slog.New(slog.NewTextHandler(&logs, nil)), ProgressLog: every}
		p := cy.progressPrinter("forty", nil)
		p(10, 100)
		time.Sleep(10 * time.Millisecond)
		p(50, 100)
		got := logs.String()
		want := every > 0
		if has := strings.Contains(got, "msg=progress challenge=forty games=50 of=100") && strings.Contains(got, "eta="); has != want {
			t.Errorf("ProgressLog %s: progress logged %v, want %v:\n%s", every, has, want, got)
		}
	}
}

// A challenge still in a cycle sits out a tick that would run it a second time at once.
func TestTickSkipsABusyChallenge(t *testing.T) {
	cy := testCycle(t, t.TempDir())
	var logs syncBuffer
	cy.Log = slog.New(slog.NewTextHandler(&logs, nil))
	d := &daemon{c: cy, loc: time.UTC, sem: make(chan struct{}, 2), scheds: map[string]robfigSchedule{}}
	d.claim([]string{"forty"}) // a cycle of forty is running
	d.tick(context.Background(), []string{"forty"}, "test")
	if out := logs.String(); !strings.Contains(out, "skipped this time") || strings.Contains(out, "msg=tick") {
		t.Errorf("a busy challenge was run again:\n%s", out)
	}
	d.release([]string{"forty"})
	if free := d.claim([]string{"forty", "ruins"}); len(free) != 2 {
		t.Errorf("claim after release: %v", free)
	}
}
