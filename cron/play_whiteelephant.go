package cron

import (
	"context"
	"fmt"
	"io"

	"kothd/engine"
	"kothd/engine/whiteelephant"
	"kothd/store"
)

// whiteElephantAdapter plugs the White Elephant Exchange (codegolf 169235) into the cycle:
// pyclass bots (every subclass of WhiteElephantBot in an answer competes), one long game
// to 500 points by default.
type whiteElephantAdapter struct{}

func init() { register("whiteelephant", whiteElephantAdapter{}) }

// whiteElephantOptions is the challenge's `options:` block in config.yaml.
type whiteElephantOptions struct {
	WinningScore float64 `yaml:"winning_score"` // default 500 (spec §2.1)
}

func (whiteElephantAdapter) options(env *PlayEnv) (whiteElephantOptions, error) {
	var o whiteElephantOptions
	err := decodeOptions(env, &o)
	return o, err
}

func (whiteElephantAdapter) Prepare(ctx context.Context, env *PlayEnv, sub Submission) ([]Entry, error) {
	return pyPrepare(ctx, env, "whiteelephant", sub)
}

func (whiteElephantAdapter) Builtins(ctx context.Context, env *PlayEnv) ([]Entry, error) {
	if !env.Challenge.Baselines {
		return nil, nil
	}
	return pyBuiltins(env, "whiteelephant", []string{"RandomBot", "GreedyBot", "NiceBot"})
}

// Validate plays a short game between two copies of the bot. It proves the class can be
// hosted; a take_turn that raises is not a validation failure but, as in the original, a
// disqualification shown on the leaderboard.
func (whiteElephantAdapter) Validate(ctx context.Context, env *PlayEnv, e Entry) error {
	return pyValidate(ctx, env, "whiteelephant", e, func(ctx context.Context, ex engine.Exchanger, bots []engine.Entrant) error {
		_, err := whiteelephant.Play(ctx, ex, bots, whiteelephant.Options{WinningScore: 5})
		return err
	})
}

func (a whiteElephantAdapter) Play(ctx context.Context, env *PlayEnv) (*Played, error) {
	o, err := a.options(env)
	if err != nil {
		return nil, err
	}
	games := firstPositive(env.Games, env.Challenge.Games, 1)
	pool := pyPool(env, "whiteelephant")
	defer pool.Close()
	res, err := whiteelephant.Play(ctx, pool, entrants(env), whiteelephant.Options{
		Seed: env.Seed, Games: games, Concurrency: firstPositive(env.Challenge.Concurrency, 8),
		WinningScore: o.WinningScore, Progress: env.Progress,
		// Policy faults (an unhashable answer) are answered by the harness, so the runner
		// counted them as OK decisions; record them where participants look for faults.
		OnFault: func(bot int, f *engine.Fault, input any) { pool.Stats(bot).Record(f, input) },
	})
	if err != nil {
		return nil, err
	}
	return &Played{Result: res, Stats: poolStats(pool, len(env.Bots)), Games: games}, nil
}

// Replay plays game GAME of a past run again, alone, with the original driver's verbose log
// (every round's turn order, openings, steals, disqualifications) and the final scores.
// Games are numbered from 0 as the run played them; a run of the original contest has the
// one game 0. The bots play in copies of their directories, with fresh processes.
func (a whiteElephantAdapter) Replay(ctx context.Context, env *PlayEnv, game int, w io.Writer) error {
	o, err := a.options(env)
	if err != nil {
		return err
	}
	env, cleanup, err := replayEnv(env)
	if err != nil {
		return err
	}
	defer cleanup()
	pool := pyPool(env, "whiteelephant")
	defer pool.Close()
	fmt.Fprintln(w, "Played again alone with fresh bot processes: the names, turn orders, present values and the seeds of the bots' random module are the run's; a bot that keeps class-level state across games, or draws entropy of its own, may decide differently than in the run.")
	return whiteelephant.Replay(ctx, pool, entrants(env), whiteelephant.Options{
		Seed: env.Seed, Games: a.replayGames(env, nil), WinningScore: o.WinningScore,
	}, game, func(line string) { fmt.Fprintln(w, line) })
}

// replayGames is the number of games the run played: counted as Play counts them.
func (whiteElephantAdapter) replayGames(env *PlayEnv, _ *store.Run) int {
	return firstPositive(env.Games, env.Challenge.Games, 1)
}
