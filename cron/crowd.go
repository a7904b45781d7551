package cron

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/publisher"
	"github.com/kothd/kothd/sandbox"
)

// A Python-class bot serves every game in flight from one process, one instance per game,
// under one memory_mb. The original controllers play one game at a time: an answer that
// keeps 800 KB per game fits them, and fits kothd at one game in flight, but not at 5,000
// (forty plays 16,384 at once). Its memory fault there is the host's choice of games in
// flight, not the answer's. So a run whose bot runs out of memory while more than one game
// is in flight stops at once and is played again from its first game with fewer games in
// flight (nextConcurrency: a sixteenth of those it held). Only a fault the host saw for
// itself counts (engine.Fault.AtLimit: a kernel kill for memory, or the process holding
// half its limit): a bot that merely raises MemoryError is charged as before. A restart
// happens at most twice (maxRestarts): the third attempt's memory faults are the bot's own,
// as they are at one game in flight. Going all the way down to one would let an answer
// that fills its memory whatever it holds (a leak, a bomb) make the host play forty's run
// at 58 games/s instead of 979; as it is, such an answer costs the host the attempts'
// time (the third at a 256th of the games in flight: forty at 64 played 327 games/s).
// The run records the games in flight it was finally played with, so its seed replays it;
// the earlier attempts leave nothing behind but a line in the output and one on the board
// (publisher.Lowered).

// CrowdedError stops a run attempt whose bot ran out of memory with several games in
// flight in its process.
type CrowdedError struct {
	Bot         string `json:"bot"`         // the bot's name
	InFlight    int    `json:"in_flight"`   // games in flight when it ran out
	Concurrency int    `json:"concurrency"` // the attempt's games in flight at most
	Detail      string `json:"detail"`      // the fault, as the runner described it
}

func (e *CrowdedError) Error() string {
	return fmt.Sprintf("%s ran out of memory with %d games in flight in its process (%s)", e.Bot, e.InFlight, e.Detail)
}

// maxRestarts bounds the attempts a run gets beyond its first (see above).
const maxRestarts = 2

// nextConcurrency is the games in flight of the attempt after one whose bot ran out of
// memory holding inFlight games: a sixteenth of them, at least one (10,000 forty games at
// 16,384 in flight: 10,000 → 625 → 39).
func nextConcurrency(inFlight int) int {
	return max(1, inFlight/16)
}

// crowdGuard passes a run's batches on, and stops the run (cancel, with a CrowdedError) at
// the first memory fault the host saw (AtLimit) in a batch that carries more than one
// game: the replies still go back to the games, which end at once under the cancelled
// context, and no checkpoint is saved after it (engine.Fold checks the context first).
type crowdGuard struct {
	engine.Exchanger
	bots   []engine.Entrant
	conc   int
	cancel context.CancelCauseFunc
}

// Exchange implements engine.Exchanger.
func (g *crowdGuard) Exchange(ctx context.Context, calls []engine.Call) []engine.Reply {
	replies := g.Exchanger.Exchange(ctx, calls)
	for i, r := range replies {
		if r.Fault == nil || r.Fault.Outcome != engine.MemoryLimit || !r.Fault.AtLimit || i >= len(calls) {
			continue
		}
		// A tick carries a call of every game in flight, each game's calls side by side.
		if n := gamesIn(calls); n > 1 {
			name := fmt.Sprintf("bot %d", calls[i].Bot)
			if b := calls[i].Bot; b >= 0 && b < len(g.bots) {
				name = g.bots[b].Name
			}
			g.cancel(&CrowdedError{Bot: name, InFlight: n, Concurrency: g.conc, Detail: r.Fault.Detail})
		}
		break
	}
	return replies
}

// gamesIn counts the games of a batch whose calls come grouped by game.
func gamesIn(calls []engine.Call) int {
	n := 0
	for i := range calls {
		if i == 0 || calls[i].Game != calls[i-1].Game {
			n++
		}
	}
	return n
}

// guardCrowding has r's batches watched for crowded memory faults when more than one game
// is in flight; play under the returned context, and ask crowded with the run's error.
func guardCrowding(ctx context.Context, r *engine.Run) (context.Context, func()) {
	if r.Calls == nil || r.Concurrency <= 1 {
		return ctx, func() {}
	}
	run, cancel := context.WithCancelCause(ctx)
	r.Calls = &crowdGuard{Exchanger: r.Calls, bots: r.Bots, conc: r.Concurrency, cancel: cancel}
	return run, func() { cancel(nil) }
}

// crowded is the CrowdedError that stopped a run attempt played under run (see
// guardCrowding), or nil.
func crowded(run context.Context) *CrowdedError {
	var ce *CrowdedError
	if errors.As(context.Cause(run), &ce) {
		return ce
	}
	return nil
}

// playFitting plays env's run with play (here, or through the cluster), watching for
// crowding (watch) on every attempt but the last, and plays it again from its first game
// with fewer games in flight each time a bot runs out of memory crowded (see above).
func (c *Cycle) playFitting(ctx context.Context, env *PlayEnv, runID int64, play func(watch bool) (*Played, error)) (*Played, error) {
	var lowered []publisher.Lowered
	for restarts := 0; ; restarts++ {
		// Each attempt is metered apart: a bench measures the one that finished.
		played, err := c.metered(env.Challenge.Name, func() (*Played, error) { return play(restarts < maxRestarts) })
		var ce *CrowdedError
		if !errors.As(err, &ce) || ctx.Err() != nil {
			if played != nil {
				played.Lowered = lowered // the board says so
			}
			return played, err
		}
		next := nextConcurrency(min(ce.InFlight, env.Run.Concurrency()))
		ch := env.Challenge
		mb := cmp.Or(ch.Limits.MemoryMB, sandbox.DefaultMemoryMB)
		lowered = append(lowered, publisher.Lowered{Bot: ce.Bot, InFlight: ce.InFlight, MemoryMB: mb, Next: next})
		c.Log.Warn("a bot ran out of memory with many games in flight; the run is played again with fewer",
			"challenge", ch.Name, "run", runID, "bot", ce.Bot, "in_flight", ce.InFlight, "memory_mb", mb,
			"concurrency", next, "fault", ce.Detail)
		games := fmt.Sprintf("%d games", next)
		if next == 1 {
			games = "one game"
		}
		last := ""
		if restarts+1 >= maxRestarts {
			last = " (the last attempt: memory faults there are the bots' own)"
		}
		c.printf("%s: %s ran out of memory (memory_mb %d) with %d games in flight in its process (the original controller plays one at a time); "+
			"playing run %d again from its first game with %s in flight%s\n",
			ch.Name, ce.Bot, mb, ce.InFlight, runID, games, last)
		if err := c.Store.RestartRun(ctx, runID, next); err != nil {
			return nil, err
		}
		env.Run = env.Run.withConcurrency(next)
		if env.Checkpoints != nil {
			env.Checkpoints.Resume = nil
		}
	}
}
