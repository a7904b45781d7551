package cron

import (
	"context"
	"errors"
	"fmt"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/internal/mdtext"
	"github.com/kothd/kothd/publisher"
	"github.com/kothd/kothd/runner/protocol"
)

// A Python-class bot serves every game in flight from one process, one instance per game,
// under one memory_mb. The original controllers play one game at a time: an answer that
// keeps 800 KB per game fits them, and fits kothd at one game in flight, but not at 5,000
// (forty plays 32,768 at once). Its memory fault there is the host's choice of games in
// flight, not the answer's. So a run whose bot runs out of memory while more than one game
// is in flight stops at once and is played again from its first game with fewer games in
// flight (nextConcurrency: a sixteenth of those it held). Only a fault the host saw for
// itself counts (engine.Fault.AtLimit: a kernel kill for memory, or the process holding
// half its limit): a bot that merely raises MemoryError is charged as before. A restart
// happens at most twice (maxRestarts): the third attempt's memory faults are the bot's own,
// as they are at one game in flight. Going all the way down to one would let an answer
// that fills its memory whatever it holds (a leak, a bomb) make the host play forty's run
// at 66 games/s instead of 1,991 (the 48-answer benchmark field, 10,000 games); as it is,
// the worst such an answer can do is fault at the end of each attempt: 10,000 games in
// flight (5.0 s), then 625 (10.6 s), then 39 (43 s, charged), about twelve runs' time.
// The run records the games in flight it was finally played with, so its seed replays it;
// the earlier attempts leave nothing behind but a line in the output and one on the board
// (publisher.Lowered).

// CrowdedError stops a run attempt whose bot ran out of memory with several games in
// flight in its process.
type CrowdedError struct {
	Bot      string `json:"bot"`       // the bot's name
	InFlight int    `json:"in_flight"` // games in flight when it ran out
	Detail   string `json:"detail"`    // the fault, as the runner described it
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
			g.cancel(&CrowdedError{Bot: name, InFlight: n, Detail: r.Fault.Detail})
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

// watchCrowding calls play (which plays r under the context it is given), watching r's
// batches for a crowded memory fault when watch is set and more than one game can be in
// flight; a run it stopped returns its CrowdedError in place of play's error.
func watchCrowding(ctx context.Context, r *engine.Run, watch bool, play func(context.Context) error) error {
	if !watch || r.Calls == nil || r.Concurrency <= 1 {
		return play(ctx)
	}
	run, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	r.Calls = &crowdGuard{Exchanger: r.Calls, bots: r.Bots, cancel: cancel}
	err := play(run)
	var ce *CrowdedError
	if errors.As(context.Cause(run), &ce) {
		return ce
	}
	return err
}

// playFitting plays env's run with play (here, or through the cluster), watching for
// crowding (watch) on every attempt but the last, and plays it again from its first game
// with fewer games in flight each time a bot runs out of memory crowded (see above).
func (c *Cycle) playFitting(ctx context.Context, env *PlayEnv, runID int64, play func(watch bool) (*Played, error)) (*Played, error) {
	var lowered []publisher.Lowered
	for restarts := 0; ; restarts++ {
		// Each attempt is metered apart: a bench measures the one that finished.
		played, err := c.metered(env, func() (*Played, error) { return play(restarts < maxRestarts) })
		var ce *CrowdedError
		if !errors.As(err, &ce) || ctx.Err() != nil {
			if played != nil {
				played.Lowered = lowered // the board says so
			}
			return played, err
		}
		next := nextConcurrency(min(ce.InFlight, env.Run.Concurrency()))
		ch := env.Challenge
		mb := int(protocol.Limits(&env.Env).MemoryBytes() >> 20)
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
			ch.Name, mdtext.Terminal(ce.Bot), mb, ce.InFlight, runID, games, last)
		if err := c.Store.RestartRun(ctx, runID, next); err != nil {
			return nil, err
		}
		env.Run = env.Run.withConcurrency(next)
		if env.Checkpoints != nil {
			env.Checkpoints.Resume = nil
		}
	}
}
