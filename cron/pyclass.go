package cron

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/runner"
)

// pyclassAdapter plays games of the pyclass protocol: an answer's competing classes are its
// bots, one harness process per class (the game's module beside the protocol's harness).
type pyclassAdapter struct{}

// pyConfig is the runner configuration of a pyclass challenge.
func pyConfig(env *PlayEnv) runner.PyConfig {
	l := env.Challenge.Limits
	return runner.PyConfig{
		Harness:      env.Game.Harness.Module,
		Python:       env.Config.Python,
		CallTimeout:  l.CallTimeout.D(time.Second),
		StartTimeout: l.StartTimeout.D(20 * time.Second),
		MaxRestarts:  20,
		Budget:       l.RunBudget.D(0),
		AnswerBudget: budgetDefault(l.AnswerBudget, l.RunBudget.D(0), answerBudgetTimes),
		TotalBudget:  budgetDefault(l.TotalBudget, l.RunBudget.D(0), totalBudgetTimes),
		Limits:       processLimits(env),
		Memo:         env.Memo,
		Shares:       env.Shares,
	}
}

func installHarness(env *PlayEnv, dir string) error {
	h := env.Game.Harness
	if err := runner.InstallHarness(dir, h.Module, h.Source); err != nil {
		return fmt.Errorf("install harness: %w", err)
	}
	return nil
}

// Prepare installs the harness beside the answer's bot.py and asks it which classes
// compete: one entry per class.
func (pyclassAdapter) Prepare(ctx context.Context, env *PlayEnv, sub Submission) ([]engine.Bot, error) {
	if err := installHarness(env, sub.Dir); err != nil {
		return nil, err
	}
	classes, err := runner.ListClasses(ctx, env.Sandbox, pyConfig(env), sub.Dir)
	if err != nil {
		return nil, err
	}
	if len(classes) == 0 {
		return nil, fmt.Errorf("no competing class found in the code: %s", env.Game.Harness.Competes)
	}
	var out []engine.Bot
	for _, c := range classes {
		out = append(out, engine.Bot{Entrant: engine.Entrant{Name: c, Author: sub.Author, Heading: sub.Heading}, AnswerID: sub.AnswerID, Dir: sub.Dir})
	}
	return out, nil
}

// Builtins prepares the game's baselines (BASELINES in its module) under the data
// directory, each hosted like an answer with an empty bot.py.
func (pyclassAdapter) Builtins(ctx context.Context, env *PlayEnv) ([]engine.Bot, error) {
	if !env.Challenge.Baselines {
		return nil, nil
	}
	var out []engine.Bot
	for _, n := range env.Game.Baselines {
		dir := filepath.Join(env.Config.DataDir, "builtin", env.Challenge.Name, n)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		if err := runner.WriteBotFile(dir, "bot.py", nil, 0o644); err != nil {
			return nil, err
		}
		if err := installHarness(env, dir); err != nil {
			return nil, err
		}
		out = append(out, engine.Bot{Entrant: engine.Entrant{Name: n, Baseline: true}, Dir: dir})
	}
	return out, nil
}

func (pyclassAdapter) open(env *PlayEnv, r *engine.Run) ([]*runner.Stats, func(), error) {
	pool := runner.NewPyPool(env.Sandbox, pyConfig(env), env.Bots)
	r.Calls = pool
	stats := make([]*runner.Stats, len(env.Bots))
	for i := range stats {
		stats[i] = pool.Stats(i)
	}
	return stats, pool.Close, nil
}

// Validate plays the game's validation between two copies of a freshly prepared bot (its
// own processes, discarded afterwards) and fails it if it cannot answer at all: no call
// other than the end-of-game clean-up ended well.
func (pyclassAdapter) Validate(ctx context.Context, env *PlayEnv, e engine.Bot) error {
	cfg := pyConfig(env)
	cfg.MaxRestarts = 1
	seed := engine.SubSeed(0, e.Name)
	// Both copies run the same class (the pool's Name); the engine tells them apart by name.
	pool := runner.NewPyPool(env.Sandbox, cfg, []engine.Bot{
		{Entrant: engine.Entrant{Name: e.Name, Seed: seed}, Dir: e.Dir},
		{Entrant: engine.Entrant{Name: e.Name, Seed: seed + 1}, Dir: e.Dir},
	})
	defer pool.Close()
	w := &answerWatch{Exchanger: pool}
	r := engine.Run{Bots: []engine.Entrant{{Name: e.Name, Seed: seed}, {Name: e.Name + "'", Seed: seed + 1}}, Options: env.Options, Concurrency: 1, Calls: w}
	if err := env.Game.Validate(ctx, r); err != nil {
		return fmt.Errorf("validation game: %w", err)
	}
	if w.answered {
		return nil
	}
	if w.first == nil {
		return fmt.Errorf("it was never called in a validation game")
	}
	if w.first.Outcome == engine.HostFault {
		return w.first
	}
	return fmt.Errorf("it did not answer in a validation game: %s (in %s)", w.first.Error(), w.firstCall)
}

// answerWatch notes whether bot 0 answered any real call, and its first fault.
type answerWatch struct {
	engine.Exchanger
	answered  bool
	first     *engine.Fault
	firstCall string
}

func (w *answerWatch) Exchange(ctx context.Context, calls []engine.Call) []engine.Reply {
	replies := w.Exchanger.Exchange(ctx, calls)
	for i, c := range calls {
		if c.Bot != 0 || c.Method == "end" {
			continue
		}
		if replies[i].Fault == nil {
			w.answered = true
		} else if w.first == nil {
			w.first, w.firstCall = replies[i].Fault, c.Method
		}
	}
	return replies
}
