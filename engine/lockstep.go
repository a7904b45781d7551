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
// harness answers a whole tick's worth of decisions per pipe round-trip. Over a Pipeliner
// the games take turns in two groups, so the bots answer one group's tick while the daemon
// steps the other's (see Run). A game is either a function that blocks on each call in a
// goroutine of its own (Run, over a Table) or a step function the tick loop advances
// itself (RunSteps, over a Stepper: no goroutine and no hand-off per decision, for games
// whose decisions are many and cheap, like forty's); both deliver the same calls in the
// same ticks.
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
//
// Over a Pipeliner the games in flight are split into pipelineGroups groups that take turns:
// group A's tick is sent, then while the bots answer it group B's games are stepped and B's
// tick is queued behind A's, then A's replies are handed back and A's next tick is built
// while the bots answer B's, and so on. Each bot receives A1, B1, A2, B2, …; a game stays in
// its group for life and a finished game's slot is refilled, in game-index order, only while
// its group is collected. So the calls each bot receives are still a function of the seed and
// the replies alone.
func (l Lockstep) Run(ctx context.Context, games int, play func(t *Table)) error {
	// No more slots than games to play: with fewer games than l.Concurrency the groups
	// would otherwise be one full and one nearly empty (10,000 forty games at 16384 made
	// groups of 8192 and 1808), and a tick's wake-up is paid per group.
	conc := max(min(l.Concurrency, games-l.First), 1)
	n := 1
	if _, ok := l.Exchanger.(Pipeliner); ok {
		n = min(pipelineGroups, conc)
	}
	groups := make([]*group, n)
	for i := range groups {
		size := conc / n
		if i < conc%n {
			size++
		}
		groups[i] = &group{size: size, events: make(chan event, size)}
	}
	next, live, done := l.First, 0, l.First
	var firstPanic error
	start := func(g *group) {
		for g.live < g.size && next < games && ctx.Err() == nil {
			t := &Table{Game: next, events: g.events, reply: make(chan []Reply, 1)}
			next++
			g.live++
			live++
			go func() {
				defer func() {
					ev := event{t: t, done: true}
					if r := recover(); r != nil {
						ev.panic = fmt.Errorf("game %d: engine panic: %v\n%s", t.Game, r, debug.Stack())
					}
					t.events <- ev
				}()
				play(t)
			}()
		}
	}
	for _, g := range groups {
		start(g)
	}
	for live > 0 {
		for _, g := range groups {
			if g.receive != nil {
				g.answer()
			}
			// Wait until every live game of the group is blocked on its next calls (or
			// finished: its slot then takes the next game).
			for len(g.waiting) < g.live {
				ev := <-g.events
				if !ev.done {
					g.waiting = append(g.waiting, ev)
					continue
				}
				g.live--
				live--
				done++
				if ev.panic != nil && firstPanic == nil {
					firstPanic = ev.panic
				}
				if l.Progress != nil {
					l.Progress(done, games)
				}
				start(g)
			}
			if len(g.waiting) > 0 {
				g.send(ctx, l.Exchanger)
			}
		}
	}
	if firstPanic == nil && next < games {
		return fmt.Errorf("stopped after %d of %d games: %w", done, games, context.Cause(ctx))
	}
	return firstPanic
}

// pipelineGroups is how many groups of games take turns over a Pipeliner: with two, the bots
// answer one group's tick while the daemon steps the other's games.
const pipelineGroups = 2

// group is a share of the games in flight, ticked together.
type group struct {
	size    int // slots: games in flight at once
	live    int
	events  chan event // its games' calls and ends
	waiting []event    // games blocked on the tick being built or answered
	calls   []Call     // the tick's calls: reused, the Exchanger is done with them once answered
	receive func() []Reply
}

// send sends the calls of the waiting games, sorted by game index, as one tick.
func (g *group) send(ctx context.Context, ex Exchanger) {
	slices.SortFunc(g.waiting, func(a, b event) int { return a.t.Game - b.t.Game })
	g.calls = g.calls[:0]
	for _, w := range g.waiting {
		g.calls = append(g.calls, w.calls...)
	}
	g.receive = Send(ctx, ex, g.calls)
}

// answer waits for the group's tick to be answered and hands each game its replies.
func (g *group) answer() {
	replies := g.receive()
	g.receive = nil
	if len(replies) != len(g.calls) {
		// An Exchanger that loses replies is a bug in it; answer the games anyway so
		// none of them blocks forever.
		replies = padReplies(replies, len(g.calls))
	}
	off := 0
	for _, w := range g.waiting {
		w.t.reply <- replies[off : off+len(w.calls) : off+len(w.calls)]
		off += len(w.calls)
	}
	g.waiting = g.waiting[:0]
}

func padReplies(r []Reply, n int) []Reply {
	out := make([]Reply, n)
	copy(out, r)
	for i := len(r); i < n; i++ {
		out[i] = Reply{Fault: &Fault{Outcome: HostFault, Detail: "no reply from the runner"}}
	}
	return out
}
