package cron

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/kothd/kothd/internal/mdtext"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/engine/all"
	"github.com/kothd/kothd/runner/protocol"
	"github.com/kothd/kothd/store"
)

// Replay plays game number game of run runID again and writes its trace to w: what a
// participant needs to see why their bot lost a game. The bots are the run's own
// directories (kept as long as their answer's revision is), played in scratch copies; bots
// that keep no state across games decide exactly as they did in the run.
func (c *Cycle) Replay(ctx context.Context, runID int64, game int, w io.Writer) error {
	run, err := c.Store.GetRun(ctx, runID)
	if err != nil {
		return err
	}
	if run == nil {
		return fmt.Errorf("no run %d", runID)
	}
	ch, err := c.Config.Challenge(run.Challenge)
	if err != nil {
		return err
	}
	env, a, err := c.newEnv(ch)
	if err != nil {
		return err
	}
	bots, err := c.Store.RunBots(ctx, runID)
	if err != nil {
		return err
	}
	if len(bots) == 0 {
		return fmt.Errorf("run %d has no recorded bots (it predates replays)", runID)
	}
	// The games the run was asked for, so the run's games are counted as it counted them.
	env.Run = env.resolve(run.GamesPlanned).withSeed(run.Seed)
	for _, b := range bots {
		if b.Dir != "" { // "": a bot the engine plays itself
			if _, err := os.Stat(b.Dir); err != nil {
				return fmt.Errorf("bot %s of run %d is gone from %s", b.Name, runID, b.Dir)
			}
		}
	}
	env.Bots = bots
	games := env.plannedGames(run.Result)
	if n, ok := c.endedAfter(ctx, runID); ok && n < games {
		games = n // a run of adaptive length that stopped early: the games after were never played
	}
	if games <= 0 {
		return fmt.Errorf("run %d has no games to replay", runID)
	}
	if game < 0 || game >= games {
		return fmt.Errorf("run %d has games 0 to %d", runID, games-1)
	}
	r, _, closeFn, err := openScratch(env, a, "replay")
	if err != nil {
		return err
	}
	defer closeFn()
	fmt.Fprintf(w, "%s, run %d (seed %d), game %d\n", ch.Name, runID, run.Seed, game)
	// A trace line holds bots' names and faults: each of its lines inert on a terminal.
	return env.Game.Replay(ctx, r, game, func(line string) {
		for _, l := range strings.Split(line, "\n") {
			fmt.Fprintln(w, mdtext.Terminal(l))
		}
	})
}

// plannedGames is how many games env's run plays: the games it asks the engine for, or,
// for an engine that plays in units (Bank Heist's tournaments, whose lengths are drawn
// from the seed), the units' games; recorded is the run's result once it has one.
func (env *PlayEnv) plannedGames(recorded *engine.Result) int {
	games := env.Run.Games()
	if env.Game.Planned != nil {
		games = cmp.Or(env.Game.Planned(env.run(), recorded), games)
	}
	return games
}

// PlannedGames is how many games run r of challenge ch plays, counted as its replay counts
// them (kothd status: "N of M games"). The row keeps the games the run was asked for, 0
// for the game's default: a Bank Heist run asks for none and plays whole tournaments, so
// the row alone said "1071 of 0 games". The challenge's options are the config's now
// (a run played under other options is counted with these); an engine the config does not
// know leaves the row's number.
func PlannedGames(ch *config.Challenge, r *store.Run) int {
	g, err := all.Games().Lookup(ch.Engine)
	if err != nil {
		return r.GamesPlanned
	}
	opts, err := g.DecodeOptions(&ch.Options)
	if err != nil {
		return r.GamesPlanned
	}
	env := &PlayEnv{Env: protocol.Env{Challenge: ch, Game: g, Options: opts}}
	env.Run = env.resolve(r.GamesPlanned).withSeed(r.Seed)
	return env.plannedGames(r.Result)
}
