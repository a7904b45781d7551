package cron

import (
	"context"
	"fmt"
	"io"
	"os"
)

// Replayer is implemented by adapters that can play one game of a past run again, alone,
// with a trace: what a participant needs to see why their bot lost a game.
type Replayer interface {
	Replay(ctx context.Context, env *PlayEnv, game int, w io.Writer) error
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
	if game < 0 || game >= run.GamesPlanned {
		return fmt.Errorf("run %d has games 0 to %d", runID, run.GamesPlanned-1)
	}
	env := &PlayEnv{Challenge: ch, Config: c.Config, Seed: run.Seed, Sandbox: c.Sandbox, Log: c.Log}
	for _, b := range bots {
		if _, err := os.Stat(b.Dir); err != nil {
			return fmt.Errorf("bot %s of run %d is gone from %s", b.Name, runID, b.Dir)
		}
		env.Bots = append(env.Bots, Entry{Name: b.Name, AnswerID: b.AnswerID, Author: b.Author, Baseline: b.Baseline, Dir: b.Dir, Seed: b.Seed})
	}
	fmt.Fprintf(w, "%s, run %d (seed %d), game %d\n", ch.Name, runID, run.Seed, game)
	return r.Replay(ctx, env, game, w)
}
