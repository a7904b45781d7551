package cron

import (
	"context"
	"testing"

	"github.com/kothd/kothd/engine"
)

// faultExchanger answers every call OK but those of bot with a fault of outcome.
type faultExchanger struct {
	bot     int
	outcome engine.Outcome
}

func (f faultExchanger) Exchange(_ context.Context, calls []engine.Call) []engine.Reply {
	replies := make([]engine.Reply, len(calls))
	for i, c := range calls {
		if c.Bot == f.bot {
			replies[i].Fault = &engine.Fault{Outcome: f.outcome, Detail: "MemoryError"}
		}
	}
	return replies
}

// The guard stops a run at a memory fault in a batch of several games, naming the bot and
// the games in flight, and at nothing else: a memory fault with one game in flight is the
// bot's own, and other faults are the bots' whatever the games in flight.
func TestCrowdGuard(t *testing.T) {
	bots := []engine.Entrant{{Name: "A"}, {Name: "B"}}
	two := []engine.Call{{Bot: 0, Game: 2}, {Bot: 0, Game: 3}, {Bot: 1, Game: 3}}
	one := []engine.Call{{Bot: 0, Game: 3}, {Bot: 1, Game: 3}}
	for _, c := range []struct {
		name    string
		outcome engine.Outcome
		calls   []engine.Call
		stopped bool
	}{
		{"memory, two games", engine.MemoryLimit, two, true},
		{"memory, one game", engine.MemoryLimit, one, false},
		{"timeout, two games", engine.Timeout, two, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &engine.Run{Bots: bots, Concurrency: 64, Calls: faultExchanger{1, c.outcome}}
			ctx, stop := guardCrowding(context.Background(), r)
			defer stop()
			replies := r.Calls.Exchange(ctx, c.calls)
			if len(replies) != len(c.calls) || replies[len(replies)-1].Fault == nil {
				t.Fatalf("the replies were not passed on: %+v", replies)
			}
			ce := crowded(ctx)
			if (ce != nil) != c.stopped {
				t.Fatalf("stopped: %v (%v), want %v", ce != nil, context.Cause(ctx), c.stopped)
			}
			if ce != nil && (ce.Bot != "B" || ce.InFlight != 2 || ce.Concurrency != 64 || ce.Detail != "MemoryError") {
				t.Errorf("%+v", ce)
			}
		})
	}
	// One game in flight at most: nothing to lower, no guard.
	r := &engine.Run{Bots: bots, Concurrency: 1, Calls: faultExchanger{1, engine.MemoryLimit}}
	ctx, stop := guardCrowding(context.Background(), r)
	defer stop()
	r.Calls.Exchange(ctx, two)
	if crowded(ctx) != nil {
		t.Error("a run of one game in flight was stopped")
	}
}

// Each attempt plays a sixteenth of the games in flight, one below sixteen.
func TestNextConcurrency(t *testing.T) {
	var seq []int
	for c := 16384; c > 1; c = nextConcurrency(c) {
		seq = append(seq, c)
	}
	if want := []int{16384, 1024, 64}; len(seq) != len(want) || seq[0] != want[0] || seq[1] != want[1] || seq[2] != want[2] {
		t.Errorf("16384 went %v then 1", seq)
	}
	for _, c := range []int{2, 15, 32, 255} {
		if n := nextConcurrency(c); n != 1 {
			t.Errorf("%d → %d, want 1", c, n)
		}
	}
}
