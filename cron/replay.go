package cron

import (
	"context"
	"fmt"
	"io"
	"os"

	"kothd/store"
)

// Replayer is implemented by adapters that can play one game of a past run again, alone,
// with a trace: what a participant needs to see why their bot lost a game.
type Replayer interface {
	Replay(ctx context.Context, env *PlayEnv, game int, w io.Writer) error
}

// replayCounter is implemented by replaying adapters whose runs do not play exactly the
// games they requested (the run's GamesPlanned: 0 for the default, a budget, a cap).
// replayGames returns how many games the run played, numbered from 0 as Replay numbers
// them; env.Games is the run's request.
type replayCounter interface {
	replayGames(env *PlayEnv, run *store.Run) int
}

// replayEnv returns a copy of env whose bots play in fresh copies of their directories,
// so that a replay never writes into the run's bot directories. The returned function
// removes the copies.
func replayEnv(env *PlayEnv) (*PlayEnv, func(), error) {
	bots, cleanup, err := workCopies(env.Config.DataDir, "replay", env.Bots)
	if err != nil {
		return nil, nil, err
	}
	cp := *env
	cp.Bots = bots
	return &cp, cleanup, nil
}

// Replay plays game number game of run runID again and writes its trace to w. The bots are
// the run's own directories (kept as long as their answer's revision is); bots that keep no
// state across games decide exactly as they did in the run.
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
	a, err := adapterFor(ch.Engine)
	if err != nil {
		return err
	}
	r, ok := a.(Replayer)
	if !ok {
		return fmt.Errorf("the %s engine cannot replay single games yet", ch.Engine)
	}
	bots, err := c.Store.RunBots(ctx, runID)
	if err != nil {
		return err
	}
	if len(bots) == 0 {
		return fmt.Errorf("run %d has no recorded bots (it predates replays)", runID)
	}
	// Games is what the run requested, so the adapter counts the run's games as Play did.
	env := &PlayEnv{Challenge: ch, Config: c.Config, Seed: run.Seed, Games: run.GamesPlanned, Sandbox: c.Sandbox, Log: c.Log}
	games := run.GamesPlanned
	if rc, ok := a.(replayCounter); ok {
		games = rc.replayGames(env, run)
	}
	if games <= 0 {
		return fmt.Errorf("run %d has no games to replay", runID)
	}
	if game < 0 || game >= games {
		return fmt.Errorf("run %d has games 0 to %d", runID, games-1)
	}
	for _, b := range bots {
		e := Entry{Name: b.Name, AnswerID: b.AnswerID, Author: b.Author, Baseline: b.Baseline, Dir: b.Dir, Seed: b.Seed, Run: b.Run}
		if b.Dir != "" { // "": a bot the engine plays itself
			if _, err := os.Stat(b.Dir); err != nil {
				return fmt.Errorf("bot %s of run %d is gone from %s", b.Name, runID, b.Dir)
			}
		}
		env.Bots = append(env.Bots, e)
	}
	fmt.Fprintf(w, "%s, run %d (seed %d), game %d\n", ch.Name, runID, run.Seed, game)
	return r.Replay(ctx, env, game, w)
}
