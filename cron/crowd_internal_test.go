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
	atLimit bool // the host saw the bot at its memory limit
}

func (f faultExchanger) Exchange(_ context.Context, calls []engine.Call) []engine.Reply {
	replies := make([]engine.Reply, len(calls))
	for i, c := range calls {
		if c.Bot == f.bot {
			replies[i].Fault = &engine.Fault{Outcome: f.outcome, Detail: "MemoryError", AtLimit: f.atLimit}
		}
	}
	return replies
}

// The guard stops a run at a memory fault the host saw in a batch of several games, naming
// the bot and the games in flight, and at nothing else: a memory fault with one game in
// flight is the bot's own, so is one only the bot reports (it raised MemoryError), and
// other faults are the bots' whatever the games in flight.
func TestCrowdGuard(t *testing.T) {
	bots := []engine.Entrant{{Name: "A"}, {Name: "B"}}
	two := []engine.Call{{Bot: 0, Game: 2}, {Bot: 0, Game: 3}, {Bot: 1, Game: 3}}
	one := []engine.Call{{Bot: 0, Game: 3}, {Bot: 1, Game: 3}}
	for _, c := range []struct {
		name    string
		outcome engine.Outcome
		atLimit bool
		calls   []engine.Call
		stopped bool
	}{
		{"memory, two games", engine.MemoryLimit, true, two, true},
		{"memory the bot claims, two games", engine.MemoryLimit, false, two, false},
		{"memory, one game", engine.MemoryLimit, true, one, false},
		{"timeout, two games", engine.Timeout, true, two, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &engine.Run{Bots: bots, Concurrency: 64, Calls: faultExchanger{1, c.outcome, c.atLimit}}
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
	r := &engine.Run{Bots: bots, Concurrency: 1, Calls: faultExchanger{1, engine.MemoryLimit, true}}
	ctx, stop := guardCrowding(context.Background(), r)
	defer stop()
	r.Calls.Exchange(ctx, two)
	if crowded(ctx) != nil {
		t.Error("a run of one game in flight was stopped")
	}
}

// Each attempt plays a sixteenth of the games its predecessor held, at least one.
func TestNextConcurrency(t *testing.T) {
	for in, want := range map[int]int{10000: 625, 625: 39, 40: 2, 16: 1, 15: 1, 1: 1} {
		if got := nextConcurrency(in); got != want {
			t.Errorf("%d in flight → %d, want %d", in, got, want)
		}
	}
}
