// Package argv is the argv protocol: any-language bots built from their answer and
// launched once per decision with the game's arguments (Bank Heist).
package argv

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/runner/protocol"
	"github.com/kothd/kothd/runner/sandbox"
)

// Protocol plays games of the argv protocol: any-language bots built from their answer
// and launched once per decision with the game's arguments, through one launcher (one
// sandbox) per bot for the whole run.
type Protocol struct{}

// Prepare builds the answer in its directory with its language's build command; the bot
// runs with the language's run command. Its name is the answer's title.
// ReadOnlyDirs: a one-shot bot may keep files in its directory between decisions.
func (Protocol) ReadOnlyDirs() bool { return false }

func (Protocol) Prepare(ctx context.Context, env *protocol.Env, sub protocol.Submission) ([]engine.Bot, error) {
	lang, ok := env.Config.Languages[sub.Language]
	if !ok {
		return nil, fmt.Errorf("unknown language %q", sub.Language)
	}
	if len(lang.Run) == 0 {
		return nil, fmt.Errorf("language %q has no run command in the host's configuration", sub.Language)
	}
	if err := protocol.BuildAnswer(ctx, env, sub); err != nil {
		return nil, err
	}
	return []engine.Bot{{
		Entrant:  engine.Entrant{Name: protocol.AnswerName(sub), Author: sub.Author, Heading: sub.Heading},
		AnswerID: sub.AnswerID, Dir: sub.Dir, Run: lang.Run,
	}}, nil
}

// Builtins are the game's baselines, which its engine plays itself (entries without a
// directory or command).
func (Protocol) Builtins(ctx context.Context, env *protocol.Env) ([]engine.Bot, error) {
	return protocol.EngineBuiltins(env), nil
}

// Open gives r a launcher (r.Launch) that starts each bot once per decision.
func (Protocol) Open(env *protocol.Env, r *engine.Run) ([]*protocol.Stats, func(), error) {
	for _, b := range env.Bots {
		if len(b.Run) == 0 && b.Dir != "" {
			return nil, nil, fmt.Errorf("bot %s: no command recorded for it", b.Name)
		}
	}
	l := newArgvLaunch(env, protocol.FaultStreak(env.Challenge.Limits.FaultStreak), env.Challenge.Limits.RunBudget.D(0))
	r.Launch = l
	return l.acct.Stats, l.close, nil
}

// Validate runs the game's validation (its first decisions) with the bot alone.
func (Protocol) Validate(ctx context.Context, env *protocol.Env, e engine.Bot) error {
	one := *env
	one.Bots = []engine.Bot{e}
	l := newArgvLaunch(&one, 0, 0)
	defer l.close()
	r := protocol.ValidationRun(&one)
	r.Launch = l
	return env.Game.Validate(ctx, r)
}

// argvLaunch launches each bot's command once per decision and keeps every bot's fault
// accounting. Bots without a command are the engine's own. Each unit of play (a Bank Heist
// tournament) has its own copy of the bots' directories and its own launchers (one sandbox
// per bot), made at its first decision from the run's directories, which no unit writes
// in: so what a bot leaves in its directory or /tmp stays within its unit, and units played
// side by side cannot change each other's games. Each unit keeps its own accounting too,
// added to the run's in unit order as units end, so the first fault shown for a bot is the
// same whatever ran beside it.
type argvLaunch struct {
	env     *protocol.Env
	timeout time.Duration
	// acct benches a bot for the rest of a unit after limits.fault_streak faulted
	// decisions in a row (a bot that sleeps past its timeout on every decision cost a
	// 1,000-game tournament some 35 minutes), and for the rest of the run once its decisions
	// took limits.run_budget of wall time (one that sleeps just under it faults never and
	// costs as much).
	acct  *protocol.OneShot
	mu    sync.Mutex
	units map[int]*argvUnit
}

// argvUnit is one unit's bots: a launcher per bot (nil for the engine's own) over the
// unit's copies of their directories.
type argvUnit struct {
	ready     chan struct{} // closed when launchers and err are set
	launchers []*sandbox.Launcher
	acct      *protocol.OneShotUnit
	cleanup   func()
	err       error
}

func newArgvLaunch(env *protocol.Env, streak int, budget time.Duration) *argvLaunch {
	return &argvLaunch{env: env, timeout: env.Challenge.Limits.CallTimeout.D(2 * time.Second), units: map[int]*argvUnit{},
		acct: protocol.NewOneShot(len(env.Bots), streak, budget)}
}

// unit returns unit k's bots, copying their directories on its first call.
func (a *argvLaunch) unit(k int) *argvUnit {
	a.mu.Lock()
	u, ok := a.units[k]
	if !ok {
		u = &argvUnit{ready: make(chan struct{}), acct: a.acct.NewUnit()}
		a.units[k] = u
	}
	a.mu.Unlock()
	if ok {
		<-u.ready
		return u
	}
	defer close(u.ready)
	work, cleanup, err := protocol.Scratch(a.env, fmt.Sprintf("unit%d", k), a.env.Bots, Protocol{}.ReadOnlyDirs())
	if err != nil {
		u.err = err
		return u
	}
	u.cleanup = cleanup
	for i, b := range work {
		var l *sandbox.Launcher
		if len(b.Run) > 0 {
			l = sandbox.NewLauncher(a.env.Sandbox, sandbox.ProcSpec{Dir: b.Dir, Argv: b.Run, Limits: protocol.Limits(a.env),
				Share: a.env.Shares.Answer(sandbox.AnswerKey(b.AnswerID, i))})
		}
		u.launchers = append(u.launchers, l)
	}
	return u
}

func (u *argvUnit) close() {
	for _, l := range u.launchers {
		if l != nil {
			l.Close()
		}
	}
	if u.cleanup != nil {
		u.cleanup()
	}
}

// EndUnit closes unit k's launchers, removes its copies and adds its accounting to the
// run's once every unit before it has been added.
func (a *argvLaunch) EndUnit(k int) {
	a.mu.Lock()
	u, ok := a.units[k]
	delete(a.units, k)
	a.mu.Unlock()
	if !ok {
		return
	}
	<-u.ready
	u.close()
	a.acct.EndUnit(k, u.acct)
}

// close ends the units still open and adds every unit not yet added, in unit order (a run
// that stopped early, a unit numbering with gaps).
func (a *argvLaunch) close() {
	a.mu.Lock()
	open := slices.Collect(maps.Keys(a.units))
	a.mu.Unlock()
	for _, k := range open {
		a.EndUnit(k)
	}
	a.acct.Flush()
}

func (a *argvLaunch) Launch(ctx context.Context, unit int, at engine.At, bot int, args []string, input any, check func(string) *engine.Fault) (string, *engine.Fault) {
	u := a.unit(unit)
	return a.acct.Decide(u.acct, bot, at, input, check, func() (string, *engine.Fault) {
		switch {
		case u.err != nil:
			return "", &engine.Fault{Outcome: engine.HostFault, Detail: u.err.Error()}
		case u.launchers[bot] != nil:
			return u.launchers[bot].Run(ctx, args, a.timeout)
		}
		return "", &engine.Fault{Outcome: engine.HostFault, Detail: fmt.Sprintf("bot %s has no run command", a.env.Bots[bot].Name)}
	})
}

func (a *argvLaunch) Command(bot int) string { return strings.Join(a.env.Bots[bot].Run, " ") }
