package cron

import (
	"context"
	"errors"
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
			var replies []engine.Reply
			r := &engine.Run{Bots: bots, Concurrency: 64, Calls: faultExchanger{1, c.outcome, c.atLimit}}
			err := watchCrowding(context.Background(), r, true, func(ctx context.Context) error {
				replies = r.Calls.Exchange(ctx, c.calls)
				return ctx.Err() // what an engine returns once its run is cancelled
			})
			if len(replies) != len(c.calls) || replies[len(replies)-1].Fault == nil {
				t.Fatalf("the replies were not passed on: %+v", replies)
			}
			var ce *CrowdedError
			if errors.As(err, &ce) != c.stopped || !c.stopped && err != nil {
				t.Fatalf("the run ended with %v; stopped by crowding: want %v", err, c.stopped)
			}
			if ce != nil && (ce.Bot != "B" || ce.InFlight != 2 || ce.Detail != "MemoryError") {
				t.Errorf("%+v", ce)
			}
		})
	}
	// Not watched (a run's last attempt), or one game in flight at most: nothing stops it.
	for _, c := range []struct {
		watch bool
		conc  int
	}{{false, 64}, {true, 1}} {
		r := &engine.Run{Bots: bots, Concurrency: c.conc, Calls: faultExchanger{1, engine.MemoryLimit, true}}
		err := watchCrowding(context.Background(), r, c.watch, func(ctx context.Context) error {
			r.Calls.Exchange(ctx, two)
			return ctx.Err()
		})
		if err != nil {
			t.Errorf("watch %v, %d in flight: stopped with %v", c.watch, c.conc, err)
		}
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

// The guard's cost on the hot path: one look at every reply of every tick (a forty tick
// at 16384 games in flight carries about 16,000 calls).
func BenchmarkCrowdGuardTick(b *testing.B) {
	calls := make([]engine.Call, 16384)
	for i := range calls {
		calls[i] = engine.Call{Bot: i % 48, Game: i}
	}
	replies := make([]engine.Reply, len(calls))
	g := &crowdGuard{Exchanger: replyExchanger(replies), cancel: func(error) {}}
	b.ReportAllocs()
	for b.Loop() {
		g.Exchange(context.Background(), calls)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(calls)), "ns/reply")
}

// replyExchanger answers every batch with the same replies.
type replyExchanger []engine.Reply

func (r replyExchanger) Exchange(context.Context, []engine.Call) []engine.Reply { return r }
