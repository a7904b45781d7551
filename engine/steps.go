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

// An Ender is a Stepper told apart from its steps that its game is over: RunSteps calls
// End once the game's Step has appended no call, from the goroutine that called RunSteps,
// in the order the games' ends are counted (their groups' order, game order within a
// group), before the game's slot is refilled. What a game hands its run at its end (its
// result, its slot) belongs there rather than in the last Step: it is then never done
// from two goroutines at once (ParallelSteps), and it comes in the same order whether the
// groups are stepped in turn or side by side. A game whose Step or start panicked is not
// ended.
type Ender interface {
	End()
}

// RunSteps plays games First..games-1 as Run does, ticks, groups and order of delivery
// included, but with each game a Stepper made by start (start(g) is game g's first state;
// it may reuse the Stepper of a game that has ended). The calls every bot receives are
// the ones Run would deliver for the same games: a game's slot is refilled, in game-index
// order, in the tick where the game ends, and a tick carries its games' calls in game
// order. start and End (Ender) are called from the goroutine that called RunSteps, one
// game at a time, and so is every Step unless the Lockstep's ParallelSteps says otherwise. A Step or start that
// panics ends its game and is returned as an error once the others have finished; a
// cancelled ctx starts no new game, as in Run.
func (l Lockstep) RunSteps(ctx context.Context, games int, start func(game int) Stepper) error {
	sizes := l.groupSizes(games)
	r := &stepRun{l: l, ctx: ctx, games: games, start: start, next: l.First, done: l.First}
	groups := make([]*stepGroup, len(sizes))
	for i, size := range sizes {
		groups[i] = &stepGroup{size: size}
		r.refill(groups[i])
	}
	var tick []Call
	log, phase := tickPhase() // kothd bench's tick log (ticks.go)
	for r.live > 0 {
		tick = tick[:0]
		for _, g := range groups {
			tick = append(tick, g.calls...)
		}
		replies := exchange(ctx, l.Exchanger, tick, log, phase)
		for _, g := range groups {
			n := len(g.calls)
			g.replies = replies[:n:n]
			replies = replies[n:]
		}
		if l.ParallelSteps && len(groups) > 1 {
			// Each group's games stepped on a goroutine of its own; what the steps leave
			// for the run (the games that ended, their End, the refills) then in the
			// groups' order, so the run is the one played group after group.
			var wg sync.WaitGroup
			for _, g := range groups[1:] {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r.stepAll(g)
				}()
			}
			r.stepAll(groups[0])
			wg.Wait()
			for _, g := range groups {
				r.settle(g)
				r.refill(g)
			}
			continue
		}
		for _, g := range groups {
			r.stepAll(g)
			r.settle(g)
			r.refill(g)
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

// stepGroup is a share of the games in flight, ticked together (see group). Stepping its
// games touches only the group (ParallelSteps); the run's counts are settled after.
type stepGroup struct {
	size    int
	games   []stepGame // in game order: a refill's game numbers are above every other's
	calls   []Call     // the group's share of the tick being built or answered
	replies []Reply    // the replies to calls, once the tick is answered
	ended   []ended    // its games that ended since settle, in order
}

// ended is a game that ended: its Stepper when it ended by its rules, or the panic of its
// start or of a Step.
type ended struct {
	s        Stepper
	panicked error
}

// stepGame is a game in flight and how many calls it has in the group's tick.
type stepGame struct {
	s     Stepper
	game  int
	calls int
}

// stepAll steps each of g's games with its replies (one per call of g's share of the
// tick) into g's next calls, and drops the games that ended from g (settle counts them,
// refill takes their slots).
func (r *stepRun) stepAll(g *stepGroup) {
	replies := g.replies
	g.replies = nil
	// The tick holds a copy of the calls: the next ones are built in the same slice.
	g.calls = g.calls[:0]
	off, kept := 0, 0
	for j, sg := range g.games {
		if j+prefetchAhead < len(g.games) {
			if p, ok := g.games[j+prefetchAhead].s.(Prefetcher); ok {
				p.Prefetch()
			}
		}
		rs := replies[off : off+sg.calls : off+sg.calls]
		off += sg.calls
		if step(&sg, rs, g) {
			g.games[kept] = sg
			kept++
		}
	}
	clear(g.games[kept:])
	g.games = g.games[:kept]
}

// refill starts new games in g's free slots, stepping each to its first calls; a game
// that ends at once frees its slot again.
func (r *stepRun) refill(g *stepGroup) {
	for len(g.games) < g.size && r.next < r.games && r.ctx.Err() == nil {
		sg := stepGame{game: r.next}
		r.next++
		r.live++
		if r.begin(&sg, g) && step(&sg, nil, g) {
			g.games = append(g.games, sg)
		}
	}
	r.settle(g)
}

// begin makes game sg.game's Stepper; false (after ending the game) if start panicked.
func (r *stepRun) begin(sg *stepGame, g *stepGroup) (ok bool) {
	defer func() {
		if p := recover(); p != nil {
			g.ended = append(g.ended, ended{panicked: fmt.Errorf("game %d: engine panic: %v\n%s", sg.game, p, debug.Stack())})
		}
	}()
	sg.s = r.start(sg.game)
	return true
}

// step advances one game with its replies, appending its next calls to g's tick. It
// reports whether the game goes on; a game that appends no call, or panics, has ended
// (noted in g.ended).
func step(sg *stepGame, replies []Reply, g *stepGroup) (more bool) {
	before := len(g.calls)
	defer func() {
		if p := recover(); p != nil {
			g.calls = g.calls[:before]
			g.ended = append(g.ended, ended{panicked: fmt.Errorf("game %d: engine panic: %v\n%s", sg.game, p, debug.Stack())})
			more = false
		}
	}()
	g.calls = sg.s.Step(replies, g.calls)
	sg.calls = len(g.calls) - before
	if sg.calls == 0 {
		g.ended = append(g.ended, ended{s: sg.s})
		return false
	}
	for i := before; i < len(g.calls); i++ {
		g.calls[i].Game = sg.game
	}
	return true
}

// settle ends (Ender) and counts the games of g that ended since it was last settled, in
// order.
func (r *stepRun) settle(g *stepGroup) {
	for i, e := range g.ended {
		if e.panicked == nil {
			e.panicked = endGame(e.s)
		}
		r.end(e.panicked)
		g.ended[i] = ended{}
	}
	g.ended = g.ended[:0]
}

// endGame calls s's End, if it has one; a panic there is returned.
func endGame(s Stepper) (panicked error) {
	en, ok := s.(Ender)
	if !ok {
		return nil
	}
	defer func() {
		if p := recover(); p != nil {
			panicked = fmt.Errorf("engine panic at a game's end: %v\n%s", p, debug.Stack())
		}
	}()
	en.End()
	return nil
}

// end counts a game as finished.
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
