package ruins

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/engine/pyrand"
)

// Replay plays game number index of a tournament with options opts again, alone, and
// reports it to trace: the seating with the characters' names, every turn's log lines
// (§2.8), and the final ranking with the points.
//
// Games are numbered in play order, as the run numbers them in its fault records: with a
// pool phase (more bots than GameSize), pool games are 0 to P−1 and final game k is P+k;
// without one, final game k is k. The seating and the game seed come from the tournament
// generator exactly as in the run. Which bots reach the finals depends on the pool's
// results, so replaying a final after a pool phase plays the P pool games again first,
// silently; if a bot decides differently there than it did in the run, the finalists may
// differ (the trace names them). opts.MaxFinals bounds the final games; opts.Log and
// opts.Progress are ignored.
func Replay(ctx context.Context, ex engine.Exchanger, bots []engine.Entrant, opts Options, index int, trace func(string)) error {
	opts = opts.withDefaults()
	opts.Log, opts.Progress = nil, nil
	if opts.SeedString == "" {
		return errors.New("ruins: a tournament seed string is required")
	}
	if len(bots) == 0 {
		return errors.New("ruins: no bots to play")
	}
	if index < 0 {
		return fmt.Errorf("ruins: no game %d", index)
	}
	if trace == nil {
		trace = func(string) {}
	}
	tr := &tournament{ctx: ctx, ex: ex, bots: bots, opts: opts,
		errs: make([]int, len(bots)), played: make([]int, len(bots)), wins: make([]int, len(bots))}
	T := pyrand.NewString(opts.SeedString)
	all := make([]Seat, len(bots))
	for i, b := range bots {
		all[i] = Seat{Class: b.Name, Bot: i}
	}
	finalists, poolGames := all, 0
	if len(bots) > opts.GameSize {
		specs := dealPool(T, all, opts.GameSize, opts.PoolGames)
		poolGames = len(specs)
		if index < poolGames {
			trace(fmt.Sprintf("Seed %s: pool game %d of %d.", opts.SeedString, index+1, poolGames))
			return tr.replayOne(index, specs[index], trace)
		}
		if index >= poolGames+opts.MaxFinals {
			return fmt.Errorf("ruins: the tournament has games 0 to %d (%d pool games, at most %d finals), not %d", poolGames+opts.MaxFinals-1, poolGames, opts.MaxFinals, index)
		}
		trace(fmt.Sprintf("Seed %s: final game %d. The finalists are the pool's top %d: the %d pool games were played again first, silently.",
			opts.SeedString, index-poolGames+1, opts.GameSize, poolGames))
		results, err := tr.run(specs)
		if err != nil {
			return fmt.Errorf("ruins pool phase: %w", err)
		}
		pool := make([]int, len(bots))
		for k, r := range results {
			if tr.count(k, r) {
				for _, s := range r.Ranked {
					if s.Adv.Bot >= 0 {
						pool[s.Adv.Bot] += s.Points
					}
				}
			}
		}
		finalists = rankPool(all, pool, opts.GameSize)
		names := make([]string, len(finalists))
		for i, f := range finalists {
			names[i] = fmt.Sprintf("%s (%d)", f.Class, pool[f.Bot])
		}
		trace("Finalists (pool score): " + strings.Join(names, ", "))
	} else {
		if index >= opts.MaxFinals {
			return fmt.Errorf("ruins: the tournament has games 0 to %d, not %d", opts.MaxFinals-1, index)
		}
		trace(fmt.Sprintf("Seed %s: final game %d (no pool phase).", opts.SeedString, index+1))
	}
	final := fillTable(finalists, opts.GameSize)
	for range index - poolGames {
		schedule(T, final) // the games before: the shuffled order carries over
	}
	return tr.replayOne(index, schedule(T, final), trace)
}

// replayOne plays one scheduled game as game index of the run, with a trace.
func (tr *tournament) replayOne(index int, spec gameSpec, trace func(string)) error {
	g := NewGame(spec.seed, spec.seats) // the same draws PlayGame makes: names for the trace
	for i, a := range g.Advs {
		trace(fmt.Sprintf("seat %d: %s", i, a))
	}
	for _, a := range g.Left {
		trace(fmt.Sprintf("%s never plays: a later seat drew the same name", a))
	}
	var res GameResult
	ls := engine.Lockstep{Exchanger: offsetExchanger{tr.ex, index}, Concurrency: 1}
	err := ls.Run(tr.ctx, 1, func(t *engine.Table) {
		res = playGame(t, spec.seats, spec.seed, trace, gameHooks{
			turn:  func(turn int) { trace(fmt.Sprintf("Turn %d:", turn)) },
			fault: func(a *Adventurer, f *engine.Fault) { trace(fmt.Sprintf("%s: %s", a, f.Error())) },
		})
	})
	if err != nil {
		return fmt.Errorf("ruins: %w", err)
	}
	if err := tr.ctx.Err(); err != nil {
		return fmt.Errorf("ruins: replay interrupted: %w", err)
	}
	if res.Voided {
		trace("The game was voided (not the bots' fault): " + res.Why)
		return nil
	}
	trace(fmt.Sprintf("Game over after %d turns, %d rooms generated. Ranking:", res.Turns, res.Rooms))
	for p, s := range res.Ranked {
		a := s.Adv
		state := "alive"
		switch {
		case a.Killed:
			state = "dead"
		case a.Room == 0:
			state = "exited"
		}
		trace(fmt.Sprintf("%d. %s: %s, %d treasures worth $%d, %dkg: %d points", p+1, a, state, len(a.Inventory), value(a.Inventory), weight(a.Inventory), s.Points))
	}
	return nil
}
