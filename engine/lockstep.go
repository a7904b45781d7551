package engine

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"
)

// Lockstep plays many games at once over one Exchanger, in ticks: it waits until every live
// game is blocked on its next calls, then sends all of them as one batch (sorted by game
// index) and hands back the replies. Because a tick starts only when every game is quiet and
// freed slots are refilled in game-index order, the sequence of calls each bot receives is a
// function of the seed and the replies alone, never of goroutine scheduling. Bots with
// class-level state or a process-wide random generator therefore replay identically, and a
// harness answers a whole tick's worth of decisions per pipe round-trip.
type Lockstep struct {
	Exchanger   Exchanger
	Concurrency int      // games in flight at once; <= 0 means 1
	Progress    Progress // optional
	// First is the first game played: a run resumed from a checkpoint starts after the
	// games it already has, with their numbers (and so their seeds) unchanged.
	First int
}

// Table is one game's handle on the bots while it is played by Lockstep.
type Table struct {
	Game   int
	events chan<- event
	// Reused by every call of the game (it waits for each reply before its next call):
	// the channel its replies come back on, and the slice of a single Call.
	reply chan []Reply
	one   [1]Call
}

type event struct {
	t     *Table
	calls []Call
	done  bool
	panic error
}

// Ask sends calls on behalf of this game and blocks until the tick that carries them is
// answered. Several calls in one Ask (simultaneous moves) travel in the same tick.
func (t *Table) Ask(calls ...Call) []Reply {
	for i := range calls {
		calls[i].Game = t.Game
	}
	t.events <- event{t: t, calls: calls}
	return <-t.reply
}

// Call asks one bot one thing.
func (t *Table) Call(bot int, method string, args any) Reply {
	t.one[0] = Call{Bot: bot, Method: method, Args: args}
	return t.Ask(t.one[:]...)[0]
}

// Run plays games First..games-1, calling play once per game in its own goroutine. play stores
// its own result (typically into a slice indexed by t.Game). Run returns when every game has
// finished; an engine bug that panics inside play is returned as an error. Once ctx is
// cancelled no new game starts: the games in flight finish (their calls fail at once) and
// Run returns the cancellation, so a stop never "plays" the rest of a run with faults.
func (l Lockstep) Run(ctx context.Context, games int, play func(t *Table)) error {
	conc := max(l.Concurrency, 1)
	events := make(chan event)
	next, live, done := l.First, 0, l.First
	var firstPanic error
	start := func() {
		for live < conc && next < games && ctx.Err() == nil {
			t := &Table{Game: next, events: events, reply: make(chan []Reply, 1)}
			next++
			live++
			go func() {
				defer func() {
					ev := event{t: t, done: true}
					if r := recover(); r != nil {
						ev.panic = fmt.Errorf("game %d: engine panic: %v\n%s", t.Game, r, debug.Stack())
					}
					events <- ev
				}()
				play(t)
			}()
		}
	}
	start()
	var waiting []event
	var calls []Call // reused: the Exchanger is done with a tick's calls when it returns
	for live > 0 {
		for len(waiting) < live {
			ev := <-events
			if !ev.done {
				waiting = append(waiting, ev)
				continue
			}
			live--
			done++
			if ev.panic != nil && firstPanic == nil {
				firstPanic = ev.panic
			}
			if l.Progress != nil {
				l.Progress(done, games)
			}
			start()
		}
		if len(waiting) == 0 {
			continue
		}
		slices.SortFunc(waiting, func(a, b event) int { return a.t.Game - b.t.Game })
		calls = calls[:0]
		for _, w := range waiting {
			calls = append(calls, w.calls...)
		}
		replies := l.Exchanger.Exchange(ctx, calls)
		if len(replies) != len(calls) {
			// An Exchanger that loses replies is a bug in it; answer the games anyway so
			// none of them blocks forever.
			replies = padReplies(replies, len(calls))
		}
		off := 0
		for _, w := range waiting {
			w.t.reply <- replies[off : off+len(w.calls) : off+len(w.calls)]
			off += len(w.calls)
		}
		waiting = waiting[:0]
	}
	if firstPanic == nil && next < games {
		return fmt.Errorf("stopped after %d of %d games: %w", done, games, context.Cause(ctx))
	}
	return firstPanic
}

func padReplies(r []Reply, n int) []Reply {
	out := make([]Reply, n)
	copy(out, r)
	for i := len(r); i < n; i++ {
		out[i] = Reply{Fault: &Fault{Outcome: HostFault, Detail: "no reply from the runner"}}
	}
	return out
}
