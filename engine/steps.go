package engine

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
)

// Stepper is one game written as a step function, for Lockstep.RunSteps: instead of a
// goroutine that blocks on each call (Run), the game keeps its own position and is
// advanced by the tick loop itself, so a decision costs no goroutine hand-off at all.
type Stepper interface {
	// Step hands the game the replies to the calls of its previous step, one per call in
	// the same order (none at its first step), and appends its next calls to calls: one
	// call, or several that travel in the same tick (simultaneous moves). A step that
	// appends no call ends the game; the game stores its own result before it does.
	// The calls' Args must stay untouched until the next Step: the runner may encode them
	// only when it writes the tick.
	Step(replies []Reply, calls []Call) []Call
}

// RunSteps plays games First..games-1 as Run does, ticks, groups and order of delivery
// included, but with each game a Stepper made by start (start(g) is game g's first state;
// it may reuse the Stepper of a game that has ended). The calls every bot receives are
// the ones Run would deliver for the same games: a game's slot is refilled, in game-index
// order, in the tick where the game ends, and a tick carries its games' calls in game
// order. start is called from the goroutine that called RunSteps, one game at a time, and
// so is every Step unless l.StepWorkers asks for more goroutines: Steps of different games
// then run at the same time. A Step or start that panics ends its game and is returned as
// an error once the others have finished; a cancelled ctx starts no new game, as in Run.
func (l Lockstep) RunSteps(ctx context.Context, games int, start func(game int) Stepper) error {
	sizes := l.groupSizes(games)
	r := &stepRun{l: l, ctx: ctx, games: games, start: start, next: l.First, done: l.First}
	groups := make([]*stepGroup, len(sizes))
	for i, size := range sizes {
		groups[i] = &stepGroup{size: size}
		r.refill(groups[i])
	}
	var tick []Call
	for r.live > 0 {
		tick = tick[:0]
		for _, g := range groups {
			tick = append(tick, g.calls...)
		}
		replies := exchange(ctx, l.Exchanger, tick)
		for _, g := range groups {
			n := len(g.calls)
			r.answer(g, replies[:n:n])
			replies = replies[n:]
		}
	}
	if r.panic == nil && r.next < games {
		return fmt.Errorf("stopped after %d of %d games: %w", r.done, games, context.Cause(ctx))
	}
	return r.panic
}

// stepRun is the state of one RunSteps.
type stepRun struct {
	l                Lockstep
	ctx              context.Context
	games            int
	start            func(game int) Stepper
	next, live, done int
	panic            error // the first
}

// stepGroup is a share of the games in flight, ticked together (see group).
type stepGroup struct {
	size  int
	games []stepGame // in game order: a refill's game numbers are above every other's
	calls []Call     // the group's share of the tick being built or answered
	parts [][]Call   // the step workers' shares of calls (StepWorkers), reused
}

// stepGame is a game in flight and how many calls it has in the group's tick.
type stepGame struct {
	s     Stepper
	game  int
	calls int
	panic error // why its last step ended it, if it panicked
}

// minStepsPerWorker is the fewest games a step worker is handed: for fewer, starting it
// costs more than it saves.
const minStepsPerWorker = 256

// answer steps each of g's games with its replies (one per call of g's share of the tick)
// into g's next calls, ends the games that ended, in game order, and refills their slots.
// With StepWorkers, contiguous runs of the games are stepped at once, each into a buffer
// of its own, and the buffers are joined in order: the calls are the same as one
// goroutine's, only sooner (the bots wait for the tick while the daemon steps it).
func (r *stepRun) answer(g *stepGroup, replies []Reply) {
	// The tick holds a copy of the calls: the next ones are built in the same slice.
	games := g.games
	w := min(max(r.l.StepWorkers, 1), len(games)/minStepsPerWorker)
	if w <= 1 {
		g.calls = stepGames(games, replies, g.calls[:0])
	} else {
		if len(g.parts) < w {
			g.parts = make([][]Call, w)
		}
		var wg sync.WaitGroup
		lo, off := 0, 0
		for i := range w {
			hi := len(games) * (i + 1) / w
			n := 0
			for _, sg := range games[lo:hi] {
				n += sg.calls
			}
			part, rs := games[lo:hi], replies[off:off+n:off+n]
			lo, off = hi, off+n
			if i == w-1 { // the last run is this goroutine's own
				g.parts[i] = stepGames(part, rs, g.parts[i][:0])
				break
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				g.parts[i] = stepGames(part, rs, g.parts[i][:0])
			}()
		}
		wg.Wait()
		g.calls = g.calls[:0]
		for _, p := range g.parts[:w] {
			g.calls = append(g.calls, p...)
		}
	}
	kept := 0
	for _, sg := range games {
		if sg.calls == 0 {
			r.end(sg.panic)
			continue
		}
		games[kept] = sg
		kept++
	}
	clear(games[kept:])
	g.games = games[:kept]
	r.refill(g)
}

// stepGames steps each game with its share of replies, in order, appending their next
// calls to calls. It touches nothing but the games and what their Steppers hold.
func stepGames(games []stepGame, replies []Reply, calls []Call) []Call {
	off := 0
	for i := range games {
		sg := &games[i]
		rs := replies[off : off+sg.calls : off+sg.calls]
		off += sg.calls
		calls = sg.step(rs, calls)
	}
	return calls
}

// refill starts new games in g's free slots, stepping each to its first calls; a game
// that ends at once frees its slot again.
func (r *stepRun) refill(g *stepGroup) {
	for len(g.games) < g.size && r.next < r.games && r.ctx.Err() == nil {
		sg := stepGame{game: r.next}
		r.next++
		r.live++
		if !r.begin(&sg) {
			continue
		}
		if g.calls = sg.step(nil, g.calls); sg.calls == 0 {
			r.end(sg.panic)
			continue
		}
		g.games = append(g.games, sg)
	}
}

// begin makes game sg.game's Stepper; false (after ending the game) if start panicked.
func (r *stepRun) begin(sg *stepGame) (ok bool) {
	defer func() {
		if p := recover(); p != nil {
			r.end(fmt.Errorf("game %d: engine panic: %v\n%s", sg.game, p, debug.Stack()))
		}
	}()
	sg.s = r.start(sg.game)
	return true
}

// step advances the game with its replies, appending its next calls to calls and
// counting them in sg.calls: none when the game has ended, by appending no call or by a
// panic (kept in sg.panic).
func (sg *stepGame) step(replies []Reply, calls []Call) (out []Call) {
	before := len(calls)
	defer func() {
		if p := recover(); p != nil {
			sg.calls, sg.panic = 0, fmt.Errorf("game %d: engine panic: %v\n%s", sg.game, p, debug.Stack())
			out = calls[:before]
		}
	}()
	calls = sg.s.Step(replies, calls)
	sg.calls = len(calls) - before
	for i := before; i < len(calls); i++ {
		calls[i].Game = sg.game
	}
	return calls
}

// end counts a game as finished; panicked is its engine panic, if it had one.
func (r *stepRun) end(panicked error) {
	r.live--
	r.done++
	if panicked != nil && r.panic == nil {
		r.panic = panicked
	}
	if r.l.Progress != nil {
		r.l.Progress(r.done, r.games)
	}
}
