// Package stdio is the stdio protocol: any-language bots built from their answer, each a
// long-lived process that reads one line per decision on stdin and answers one line on
// stdout, for the length of one unit of play (a referee's game).
package stdio

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
	"github.com/kothd/kothd/runner/protocol/argv"
	"github.com/kothd/kothd/runner/sandbox"
)

// Protocol plays games of the stdio protocol.
type Protocol struct{}

// ReadOnlyDirs: a stdio bot keeps its state in its process, not in files; its directory
// is shown read-only, so it can neither fill the host's disk nor leave notes for its next
// game.
func (Protocol) ReadOnlyDirs() bool { return true }

// Prepare builds the answer in its directory with its language's build command, exactly as
// the argv protocol does (the bot runs with the language's run command).
func (Protocol) Prepare(ctx context.Context, env *protocol.Env, sub protocol.Submission) ([]engine.Bot, error) {
	return argv.Protocol{}.Prepare(ctx, env, sub)
}

// Builtins are the game's baselines, which its engine plays itself.
func (Protocol) Builtins(ctx context.Context, env *protocol.Env) ([]engine.Bot, error) {
	return protocol.EngineBuiltins(env), nil
}

// Open gives r the bots' lines (r.Lines).
func (Protocol) Open(env *protocol.Env, r *engine.Run) ([]*protocol.Stats, func(), error) {
	for _, b := range env.Bots {
		if len(b.Run) == 0 && b.Dir != "" {
			return nil, nil, fmt.Errorf("bot %s: no command recorded for it", b.Name)
		}
	}
	l := newLines(context.Background(), env, protocol.FaultStreak(env.Challenge.Limits.FaultStreak), env.Challenge.Limits.RunBudget.D(0))
	r.Lines = l
	return l.acct.Stats, l.close, nil
}

// Validate plays the game's validation with the bot alone.
func (Protocol) Validate(ctx context.Context, env *protocol.Env, e engine.Bot) error {
	one := *env
	one.Bots = []engine.Bot{e}
	l := newLines(ctx, &one, 0, 0)
	defer l.close()
	r := protocol.ValidationRun(&one)
	r.Lines = l
	return env.Game.Validate(ctx, r)
}

// lines keeps one process per bot per unit, started at the bot's first decision there,
// and every bot's fault accounting. Each unit keeps its own accounting, added to the run's
// in unit order as units end (like argv's), so the first fault shown for a bot is the same
// whatever ran beside it.
type lines struct {
	env                *protocol.Env
	ctx                context.Context // the processes' (a validation's, else the run's lifetime)
	timeout, startTime time.Duration
	acct               *protocol.OneShot // faults, benches (limits.fault_streak per unit, run_budget per run)
	mu                 sync.Mutex
	units              map[int]*unit
}

// unit is one unit's processes, per bot (nil until its first decision, or after its
// process died). A bot's decisions in a unit come one at a time.
type unit struct {
	procs []*sandbox.SyncLineProc
	locks []sync.Mutex
	acct  *protocol.OneShotUnit
}

func newLines(ctx context.Context, env *protocol.Env, streak int, budget time.Duration) *lines {
	return &lines{env: env, ctx: ctx, timeout: env.Challenge.Limits.CallTimeout.D(2 * time.Second),
		startTime: env.Challenge.Limits.StartTimeout.D(5 * time.Second),
		units:     map[int]*unit{}, acct: protocol.NewOneShot(len(env.Bots), streak, budget)}
}

func (l *lines) unit(k int) *unit {
	l.mu.Lock()
	defer l.mu.Unlock()
	u, ok := l.units[k]
	if !ok {
		n := len(l.env.Bots)
		u = &unit{procs: make([]*sandbox.SyncLineProc, n), locks: make([]sync.Mutex, n), acct: l.acct.NewUnit()}
		l.units[k] = u
	}
	return u
}

func (l *lines) Ask(ctx context.Context, k int, at engine.At, bot int, line string, input any, check func(string) *engine.Fault) (string, *engine.Fault) {
	u := l.unit(k)
	u.locks[bot].Lock()
	defer u.locks[bot].Unlock()
	return l.acct.Decide(u.acct, bot, at, input, check, func() (string, *engine.Fault) { return l.ask(ctx, u, bot, line) })
}

// ask sends one line to the bot's process in u, starting it first if it has none.
func (l *lines) ask(ctx context.Context, u *unit, bot int, line string) (string, *engine.Fault) {
	b := l.env.Bots[bot]
	if len(b.Run) == 0 {
		return "", &engine.Fault{Outcome: engine.HostFault, Detail: fmt.Sprintf("bot %s has no run command", b.Name)}
	}
	if strings.ContainsAny(line, "\n\r") {
		return "", &engine.Fault{Outcome: engine.HostFault, Detail: "a request of several lines (the rules' mistake, not the bot's)"}
	}
	deadline := l.timeout
	p := u.procs[bot]
	if p == nil {
		var err error
		p, err = sandbox.StartSyncLineProc(l.ctx, l.env.Sandbox, sandbox.ProcSpec{Dir: b.Dir, Argv: b.Run, Limits: protocol.Limits(l.env),
			ReadOnlyDir: true, Share: l.env.Shares.Answer(sandbox.AnswerKey(b.AnswerID, bot))})
		if err != nil {
			return "", &engine.Fault{Outcome: engine.HostFault, Detail: err.Error()}
		}
		u.procs[bot] = p
		deadline += l.startTime // its first reply includes its start-up
	}
	reply, f := p.Exchange([]byte(line), deadline, false)
	if f != nil {
		if f.ProcessDied || !p.Alive() {
			p.Close()
			u.procs[bot] = nil // its next decision starts it afresh
		}
		return "", f
	}
	return string(reply), nil
}

// EndUnit stops unit k's processes and adds its accounting to the run's once every unit
// before it has been added.
func (l *lines) EndUnit(k int) {
	l.mu.Lock()
	u, ok := l.units[k]
	delete(l.units, k)
	l.mu.Unlock()
	if !ok {
		return
	}
	for i, p := range u.procs {
		if p != nil {
			u.locks[i].Lock()
			p.Close()
			u.procs[i] = nil
			u.locks[i].Unlock()
		}
	}
	l.acct.EndUnit(k, u.acct)
}

// close ends the units still open and adds every unit not yet added, in unit order.
func (l *lines) close() {
	l.mu.Lock()
	open := slices.Collect(maps.Keys(l.units))
	l.mu.Unlock()
	for _, k := range open {
		l.EndUnit(k)
	}
	l.acct.Flush()
}
