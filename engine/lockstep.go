package engine

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"
	"time"
)

// Lockstep plays many games at once over one Exchanger, in ticks: it waits until every live
// game is blocked on its next calls, then sends all of them as one batch and hands back the
// replies. Because a tick starts only when every game is quiet and freed slots are refilled
// in game-index order, the sequence of calls each bot receives is a function of the seed and
// the replies alone, never of goroutine scheduling. Bots with class-level state or a
// process-wide random generator therefore replay identically, and a harness answers a whole
// tick's worth of decisions per pipe round-trip. The games in flight may be dealt into
// groups (Groups), which only orders a tick's calls. A game is either a function that
// blocks on each call in a goroutine of its own (Run, over a Table) or a step function the
// tick loop advances itself (RunSteps, over a Stepper: no goroutine and no hand-off per
// decision, for games whose decisions are many and cheap, like forty's); both deliver the
// same calls in the same ticks.
type Lockstep struct {
	Exchanger   Exchanger
	Concurrency int      // games in flight at once; <= 0 means 1
	Progress    Progress // optional
	// Groups deals the slots of the games in flight into this many groups (<= 1: one),
	// each refilled on its own: a tick carries group A's calls in game order, then group
	// B's, and so on. It orders the calls each bot receives, so a run's results depend on
	// it as on Concurrency (bots with state across games see another order). The forty
	// game and White Elephant use two: their ticks were once sent as two batches in turn,
	// and one batch in that order plays their runs exactly as before (see TickGroups).
	Groups int
	// First is the first game played: a run resumed from a checkpoint starts after the
	// games it already has, with their numbers (and so their seeds) unchanged.
	First int
	// ParallelSteps (RunSteps only) steps each group's games on a goroutine of its own
	// while the bots wait for the next tick: for Steppers whose Steps touch nothing but
	// their own game, what a game hands its run at its end being left to its End (Ender).
	// The run is the same: games are ended, counted and refilled in the groups' order.
	ParallelSteps bool
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
// With Groups, a game stays in its group for life and a finished game's slot is refilled,
// in game-index order, while its group is collected: group A's refills take the next game
// numbers, then group B's. So the calls each bot receives are still a function of the seed
// and the replies alone.
func (l Lockstep) Run(ctx context.Context, games int, play func(t *Table)) error {
	sizes := l.groupSizes(games)
	groups := make([]*group, len(sizes))
	for i, size := range sizes {
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
	var tick []Call           // reused: the Exchanger is done with a tick's calls once it has answered
	log, phase := tickPhase() // kothd bench's tick log (ticks.go)
	for live > 0 {
		tick = tick[:0]
		for _, g := range groups {
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
			tick = g.collect(tick)
		}
		replies := exchange(ctx, l.Exchanger, tick, log, phase)
		for _, g := range groups {
			replies = g.answer(replies)
		}
	}
	if firstPanic == nil && next < games {
		return fmt.Errorf("stopped after %d of %d games: %w", done, games, context.Cause(ctx))
	}
	return firstPanic
}

// groupSizes is the number of slots of each group: l.Groups groups (at least one) sharing
// the games in flight evenly. No more slots than games to play: with fewer games than
// l.Concurrency the groups would otherwise be one full and one nearly empty (10,000 forty
// games at 16384 made groups of 8192 and 1808).
func (l Lockstep) groupSizes(games int) []int {
	conc := max(min(l.Concurrency, games-l.First), 1)
	n := min(max(l.Groups, 1), conc)
	sizes := make([]int, n)
	for i := range sizes {
		sizes[i] = conc / n
		if i < conc%n {
			sizes[i]++
		}
	}
	return sizes
}

// TickGroups is the Groups of the games whose ticks used to be pipelined (forty, White
// Elephant): their ticks went out as two batches, group A's then group B's, each bot answering one
// while the daemon stepped the other. On a 2-core VM one batch per bot per tick played
// 10,000 forty games 1.2 times as fast and 60,000 1.14 times (each batch wakes a harness
// whose caches the fifty others evicted: about 180 µs of its CPU, some 35 calls' worth),
// so a tick is now one batch, its calls in the groups' order: the runs are unchanged.
const TickGroups = 2

// exchange sends a tick, if it holds any call, and returns one reply per call.
func exchange(ctx context.Context, ex Exchanger, tick []Call, log *TickLog, phase int) []Reply {
	if len(tick) == 0 {
		return nil
	}
	var start time.Time
	if log != nil {
		start = time.Now()
	}
	replies := ex.Exchange(ctx, tick)
	if log != nil {
		log.note(phase, len(tick), start)
	}
	if len(replies) != len(tick) {
		// An Exchanger that loses replies is a bug in it; answer the games anyway so
		// none of them blocks forever.
		replies = padReplies(replies, len(tick))
	}
	return replies
}

// group is a share of the games in flight, ticked together.
type group struct {
	size    int // slots: games in flight at once
	live    int
	events  chan event // its games' calls and ends
	waiting []event    // games blocked on the tick being built or answered
	calls   int        // how many of the tick's calls are the group's
}

// collect appends the calls of the waiting games, sorted by game index, to the tick.
func (g *group) collect(tick []Call) []Call {
	slices.SortFunc(g.waiting, func(a, b event) int { return a.t.Game - b.t.Game })
	before := len(tick)
	for _, w := range g.waiting {
		tick = append(tick, w.calls...)
	}
	g.calls = len(tick) - before
	return tick
}

// answer hands each waiting game its replies, taken from the front of the tick's replies,
// and returns the rest.
func (g *group) answer(replies []Reply) []Reply {
	off := 0
	for _, w := range g.waiting {
		w.t.reply <- replies[off : off+len(w.calls) : off+len(w.calls)]
		off += len(w.calls)
	}
	g.waiting = g.waiting[:0]
	return replies[g.calls:]
}

func padReplies(r []Reply, n int) []Reply {
	out := make([]Reply, n)
	copy(out, r)
	for i := len(r); i < n; i++ {
		out[i] = Reply{Fault: &Fault{Outcome: HostFault, Detail: "no reply from the runner"}}
	}
	return out
}
