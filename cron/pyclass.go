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
		Budget:       l.RunBudget.D(0),
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
		DirMB:       l.DiskMB,
	}
}

// competitorRule says, per harness, which classes compete (for the rejection message).
var competitorRule = map[string]string{
	"forty":         "a bot is a class deriving directly from Bot (a class deriving from another bot does not compete)",
	"whiteelephant": "a bot is a class deriving from WhiteElephantBot",
	"ruins":         "a bot is a class deriving from Adventurer",
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
		return nil, fmt.Errorf("no competing class found in the code: %s", competitorRule[harness])
	}
	var out []Entry
	for _, c := range classes {
		out = append(out, Entry{Name: c, AnswerID: sub.AnswerID, Author: sub.Author, Title: sub.Title, Dir: sub.Dir})
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
		if err := runner.WriteBotFile(dir, "bot.py", nil, 0o644); err != nil {
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

// pyValidate plays a short game between two copies of a freshly prepared bot (its own
// processes, discarded afterwards) and fails it if it cannot answer at all: no call other
// than the end-of-game clean-up ended well. play runs the engine's games over the pool.
func pyValidate(ctx context.Context, env *PlayEnv, harness string, e Entry, play func(ctx context.Context, ex engine.Exchanger, bots []engine.Entrant) error) error {
	cfg := pyConfig(env, harness)
	cfg.MaxRestarts = 1
	seed := engine.SubSeed(0, e.Name)
	pool := runner.NewPyPool(env.Sandbox, cfg, []runner.PyBot{{Name: e.Name, Dir: e.Dir, Seed: seed}, {Name: e.Name, Dir: e.Dir, Seed: seed + 1}})
	defer pool.Close()
	w := &answerWatch{Exchanger: pool}
	if err := play(ctx, w, []engine.Entrant{{Name: e.Name}, {Name: e.Name + "'"}}); err != nil {
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
