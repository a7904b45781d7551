package pyclass

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"time"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/runner/protocol"
	"github.com/kothd/kothd/runner/sandbox"
)

// Protocol plays games of the pyclass protocol: an answer's competing classes are its
// bots, one harness process per class (the game's module beside the protocol's harness).
type Protocol struct{}

// pyConfig is the runner configuration of a pyclass challenge.
func pyConfig(env *protocol.Env) PyConfig {
	l := env.Challenge.Limits
	return PyConfig{
		Harness:      env.Game.Harness.Module,
		Python:       env.Config.Python,
		CallTimeout:  l.CallTimeout.D(time.Second),
		StartTimeout: l.StartTimeout.D(20 * time.Second),
		MaxRestarts:  20,
		Budget:       l.RunBudget.D(0),
		AnswerBudget: budgetDefault(l.AnswerBudget, l.RunBudget.D(0), answerBudgetTimes),
		AnswerWall:   l.AnswerWall.D(0), // 0: the answer's budget (newBudgets)
		TotalBudget:  budgetDefault(l.TotalBudget, l.RunBudget.D(0), totalBudgetTimes),
		Limits:       protocol.Limits(env),
		Memo:         env.Memo,
		FaultStreak:  protocol.FaultStreak(l.FaultStreak),
		Decision:     env.Game.Harness.IsDecision,
		Shares:       env.Shares,
		PureHarness:  env.Config.PythonFast != nil && !*env.Config.PythonFast,
	}
}

func installHarness(env *protocol.Env, dir string) error {
	h := env.Game.Harness
	if err := InstallHarness(dir, h.Module, h.Source); err != nil {
		return fmt.Errorf("install harness: %w", err)
	}
	return nil
}

// Prepare installs the harness beside the answer's bot.py and asks it which classes
// compete: one entry per class.
// ReadOnlyDirs: a harness and its class write nothing to the bot's directory (the
// sandbox shows it read-only: pyclass.go's spec).
func (Protocol) ReadOnlyDirs() bool { return true }

func (Protocol) Prepare(ctx context.Context, env *protocol.Env, sub protocol.Submission) ([]engine.Bot, error) {
	if err := installHarness(env, sub.Dir); err != nil {
		return nil, err
	}
	classes, err := ListClasses(ctx, env.Sandbox, pyConfig(env), sub.Dir)
	if err != nil {
		return nil, err
	}
	if len(classes) == 0 {
		if n := baselineClass(sub.Dir, env.Game.Baselines); n != "" {
			return nil, fmt.Errorf("the answer's class %s has the name of a built-in baseline bot of this game, which the game defines itself, so the class does not compete: rename it", n)
		}
		return nil, fmt.Errorf("no competing class found in the code: %s", env.Game.Harness.Competes)
	}
	var out []engine.Bot
	for _, c := range classes {
		out = append(out, engine.Bot{Entrant: engine.Entrant{Name: c, Author: sub.Author, Heading: sub.Heading}, AnswerID: sub.AnswerID, Dir: sub.Dir})
	}
	return out, nil
}

// classLine finds class statements in Python source (their names).
var classLine = regexp.MustCompile(`(?m)^[ \t]*class[ \t]+([A-Za-z_][A-Za-z_0-9]*)`)

// baselineClass is the name of a class the answer's bot.py defines under the name of one
// of the game's baselines, or "". The game's namespace already holds its baselines, and a
// class an answer defines under such a name is not counted as the answer's (forty's rule:
// only names the answer brought in compete), so the listing finds no class: the answer
// must hear why, not "no competing class found".
func baselineClass(dir string, baselines []string) string {
	src, err := os.ReadFile(filepath.Join(dir, "bot.py"))
	if err != nil {
		return ""
	}
	for _, m := range classLine.FindAllStringSubmatch(string(src), -1) {
		if slices.Contains(baselines, m[1]) {
			return m[1]
		}
	}
	return ""
}

// Builtins prepares the game's baselines (BASELINES in its module) under the data
// directory, each hosted like an answer with an empty bot.py.
func (Protocol) Builtins(ctx context.Context, env *protocol.Env) ([]engine.Bot, error) {
	if !env.Challenge.Baselines {
		return nil, nil
	}
	var out []engine.Bot
	for _, n := range env.Game.Baselines {
		dir := filepath.Join(env.Config.DataDir, "builtin", env.Challenge.Name, n)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		if err := sandbox.WriteBotFile(dir, "bot.py", nil, 0o644); err != nil {
			return nil, err
		}
		if err := installHarness(env, dir); err != nil {
			return nil, err
		}
		out = append(out, engine.Bot{Entrant: engine.Entrant{Name: n, Baseline: true}, Dir: dir})
	}
	return out, nil
}

// Open starts one harness process per bot, behind one pool (r.Calls).
func (Protocol) Open(env *protocol.Env, r *engine.Run) ([]*protocol.Stats, func(), error) {
	pool := NewPyPool(env.Sandbox, pyConfig(env), env.Bots)
	r.Calls = pool
	stats := make([]*protocol.Stats, len(env.Bots))
	for i := range stats {
		stats[i] = pool.Stats(i)
	}
	return stats, pool.Close, nil
}

// Validate plays the game's validation (validate.go): the bot against the game's
// baselines (a second copy of itself when the game has none), in fresh processes discarded
// afterwards.
func (Protocol) Validate(ctx context.Context, env *protocol.Env, e engine.Bot) error {
	cfg := pyConfig(env)
	cfg.MaxRestarts = 1
	cfg.FaultStreak = 0 // validation counts every decision itself
	cfg.OwnMethods = true
	seed := engine.SubSeed(0, e.Name)
	bots := []engine.Bot{{Entrant: engine.Entrant{Name: e.Name, Seed: seed}, Dir: e.Dir}}
	ents := []engine.Entrant{bots[0].Entrant}
	opponents, err := validationOpponents(env, filepath.Dir(e.Dir))
	if err != nil {
		return &engine.Fault{Outcome: engine.HostFault, Detail: err.Error()}
	}
	if len(opponents) == 0 {
		// Both copies run the same class (the pool's Name); the engine tells them apart.
		opponents = []engine.Bot{{Entrant: engine.Entrant{Name: e.Name}, Dir: e.Dir}}
	}
	for k, o := range opponents {
		o.Seed = seed + uint64(k) + 1
		bots = append(bots, o)
		ent := o.Entrant
		if ent.Name == e.Name {
			ent.Name += "'"
		}
		ents = append(ents, ent)
	}
	pool := NewPyPool(env.Sandbox, cfg, bots)
	defer pool.Close()
	w := &decisionWatch{Exchanger: pool, harness: env.Game.Harness}
	r := engine.Run{Bots: ents, Options: env.Options, Concurrency: 1, Calls: w}
	if err := env.Game.Validate(ctx, r); err != nil {
		return fmt.Errorf("validation game: %w", err)
	}
	return w.verdict()
}

// validationOpponents are the game's baselines, each hosted like an answer with an empty
// bot.py in its own directory under dir (the validation's scratch directory).
func validationOpponents(env *protocol.Env, dir string) ([]engine.Bot, error) {
	var out []engine.Bot
	for _, n := range env.Game.Baselines {
		d := filepath.Join(dir, "baseline-"+n)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
		if err := sandbox.WriteBotFile(d, "bot.py", nil, 0o644); err != nil {
			return nil, err
		}
		if err := installHarness(env, d); err != nil {
			return nil, err
		}
		out = append(out, engine.Bot{Entrant: engine.Entrant{Name: n, Baseline: true}, Dir: d})
	}
	return out, nil
}

// decisionWatch watches bot 0's decisions in a validation game (validate.go).
type decisionWatch struct {
	engine.Exchanger
	harness *engine.Harness
	decisions
}

func (w *decisionWatch) Exchange(ctx context.Context, calls []engine.Call) []engine.Reply {
	replies := w.Exchanger.Exchange(ctx, calls)
	for i, c := range calls {
		input := func() string { return c.Method + " " + callArgs(c.Args) }
		switch {
		case c.Bot != 0:
		case w.harness.IsDecision(c.Method):
			w.note(replies[i].Fault, input)
		default:
			w.noteSetup(replies[i].Fault, input)
		}
	}
	return replies
}

// UnorderedStats: the pool counts a decision when it is answered, and one batch carries
// many games' calls, so the cycle counts them in game order itself (protocol.Unordered).
func (Protocol) UnorderedStats() {}
