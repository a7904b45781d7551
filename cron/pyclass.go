package cron

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"kothd/engine"
	"kothd/runner"
)

// Shared plumbing for the pyclass challenges (forty, White Elephant, Ruins): each adapter
// names its harness module and its engine; everything about processes is the same.

// pyConfig is the runner configuration of a pyclass challenge.
func pyConfig(env *PlayEnv, harness string) runner.PyConfig {
	l := env.Challenge.Limits
	return runner.PyConfig{
		Harness:      harness,
		Python:       env.Config.Python,
		CallTimeout:  l.CallTimeout.D(time.Second),
		StartTimeout: l.StartTimeout.D(20 * time.Second),
		MaxRestarts:  20,
		Limits:       processLimits(env),
	}
}

// processLimits turns a challenge's configured limits into the sandbox's.
func processLimits(env *PlayEnv) runner.Limits {
	l := env.Challenge.Limits
	return runner.Limits{
		CPUTime:     time.Duration(l.CPUSeconds) * time.Second,
		MemoryMB:    l.MemoryMB,
		Procs:       l.Procs,
		OpenFiles:   l.OpenFiles,
		OutputBytes: int64(l.OutputKB) << 10,
		FileSizeMB:  l.DiskMB,
	}
}

// pyPrepare installs the harness beside the answer's bot.py and asks it which classes
// compete: one entry per class.
func pyPrepare(ctx context.Context, env *PlayEnv, harness string, sub Submission) ([]Entry, error) {
	if err := runner.InstallHarness(sub.Dir); err != nil {
		return nil, fmt.Errorf("install harness: %w", err)
	}
	classes, err := runner.ListClasses(ctx, env.Sandbox, pyConfig(env, harness), sub.Dir)
	if err != nil {
		return nil, err
	}
	if len(classes) == 0 {
		return nil, fmt.Errorf("no competing class found in the code")
	}
	var out []Entry
	for _, c := range classes {
		out = append(out, Entry{Name: c, AnswerID: sub.AnswerID, Author: sub.Author, Dir: sub.Dir})
	}
	return out, nil
}

// pyBuiltins prepares the harness's built-in bots (BASELINES in its module) under the data
// directory, each hosted like an answer with an empty bot.py.
func pyBuiltins(env *PlayEnv, harness string, names []string) ([]Entry, error) {
	var out []Entry
	for _, n := range names {
		dir := filepath.Join(env.Config.DataDir, "builtin", env.Challenge.Name, n)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, "bot.py"), nil, 0o644); err != nil {
			return nil, err
		}
		if err := runner.InstallHarness(dir); err != nil {
			return nil, err
		}
		out = append(out, Entry{Name: n, Baseline: true, Dir: dir})
	}
	return out, nil
}

// pyPool starts (lazily) one harness process per entry.
func pyPool(env *PlayEnv, harness string) *runner.PyPool {
	bots := make([]runner.PyBot, len(env.Bots))
	for i, b := range env.Bots {
		bots[i] = runner.PyBot{Name: b.Name, Dir: b.Dir, Seed: b.Seed}
	}
	return runner.NewPyPool(env.Sandbox, pyConfig(env, harness), bots)
}

// entrants is the engine's view of the bots.
func entrants(env *PlayEnv) []engine.Entrant {
	out := make([]engine.Entrant, len(env.Bots))
	for i, b := range env.Bots {
		out[i] = engine.Entrant{Name: b.Name, Baseline: b.Baseline}
	}
	return out
}

// poolStats collects each bot's fault accounting after a run.
func poolStats(p *runner.PyPool, n int) []*runner.Stats {
	out := make([]*runner.Stats, n)
	for i := range out {
		out[i] = p.Stats(i)
	}
	return out
}
