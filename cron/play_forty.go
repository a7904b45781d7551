package cron

import (
	"context"
	"fmt"
	"io"
	"time"

	"kothd/engine"
	"kothd/engine/forty"
)

// fortyAdapter plugs the forty dice game (codegolf 177765) into the cycle: pyclass bots,
// lockstep games of 8 random seats.
type fortyAdapter struct{}

func init() { register("forty", fortyAdapter{}) }

func (fortyAdapter) Prepare(ctx context.Context, env *PlayEnv, sub Submission) ([]Entry, error) {
	return pyPrepare(ctx, env, "forty", sub)
}

func (fortyAdapter) Builtins(ctx context.Context, env *PlayEnv) ([]Entry, error) {
	if !env.Challenge.Baselines {
		return nil, nil
	}
	return pyBuiltins(env, "forty", []string{"ThrowTwiceBot", "GoToTenBot"})
}

// Validate plays one game between two copies of the bot.
func (fortyAdapter) Validate(ctx context.Context, env *PlayEnv, e Entry) error {
	return pyValidate(ctx, env, "forty", e, func(ctx context.Context, ex engine.Exchanger, bots []engine.Entrant) error {
		_, err := forty.Run(ctx, ex, bots, forty.Options{Games: 1, Concurrency: 1})
		return err
	})
}

func (fortyAdapter) Play(ctx context.Context, env *PlayEnv) (*Played, error) {
	games := firstPositive(env.Games, env.Challenge.Games, 1_000_000)
	pool := pyPool(env, "forty")
	defer pool.Close()
	start := time.Now()
	tally, err := forty.Run(ctx, pool, entrants(env), forty.Options{
		Games: games, Seed: env.Seed, Concurrency: firstPositive(env.Challenge.Concurrency, 1024), Progress: env.Progress,
	})
	if err != nil {
		return nil, err
	}
	res := forty.Table(tally, entrants(env), time.Since(start).Seconds())
	return &Played{Result: res, Stats: poolStats(pool, len(env.Bots)), Games: games}, nil
}

// Replay plays one game of a past run again with a turn-by-turn trace.
func (fortyAdapter) Replay(ctx context.Context, env *PlayEnv, game int, w io.Writer) error {
	pool := pyPool(env, "forty")
	defer pool.Close()
	res, err := forty.Replay(ctx, pool, entrants(env), env.Seed, game, func(line string) { fmt.Fprintln(w, line) })
	if err != nil {
		return err
	}
	for i, s := range res.Seats {
		fmt.Fprintf(w, "seat %d: %d points%s\n", i, s.Score, map[bool]string{true: " (won)"}[s.Won])
	}
	return nil
}

// firstPositive returns the first of its arguments above zero.
func firstPositive(v ...int) int {
	for _, x := range v {
		if x > 0 {
			return x
		}
	}
	return 0
}
