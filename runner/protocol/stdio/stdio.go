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
	l := newLines(context.Background(), env)
	l.streak = protocol.FaultStreak(env.Challenge.Limits.FaultStreak)
	l.budget = env.Challenge.Limits.RunBudget.D(0)
	r.Lines = l
	return l.stats, l.close, nil
}

// Validate plays the game's validation with the bot alone.
func (Protocol) Validate(ctx context.Context, env *protocol.Env, e engine.Bot) error {
	one := *env
	one.Bots = []engine.Bot{e}
	l := newLines(ctx, &one)
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
	streak             int           // limits.fault_streak: faulted decisions in a row that bench a bot for its unit
	budget             time.Duration // limits.run_budget: wall time over the run that benches it
	stats              []*protocol.Stats
	fold               *protocol.UnitFold // adds each unit's accounting to stats in unit order
	mu                 sync.Mutex
	spent              []time.Duration
	units              map[int]*unit
}

// unit is one unit's processes, per bot (nil until its first decision, or after its
// process died). A bot's decisions in a unit come one at a time.
type unit struct {
	procs   []*sandbox.SyncLineProc
	locks   []sync.Mutex
	stats   []*protocol.Stats
	faulted []int
}

func newLines(ctx context.Context, env *protocol.Env) *lines {
	l := &lines{env: env, ctx: ctx, timeout: env.Challenge.Limits.CallTimeout.D(2 * time.Second),
		startTime: env.Challenge.Limits.StartTimeout.D(5 * time.Second),
		units:     map[int]*unit{}, spent: make([]time.Duration, len(env.Bots))}
	for range env.Bots {
		l.stats = append(l.stats, protocol.NewStats())
	}
	l.fold = protocol.NewUnitFold(l.stats)
	return l
}

func (l *lines) unit(k int) *unit {
	l.mu.Lock()
	defer l.mu.Unlock()
	u, ok := l.units[k]
	if !ok {
		n := len(l.env.Bots)
		u = &unit{procs: make([]*sandbox.SyncLineProc, n), locks: make([]sync.Mutex, n), stats: make([]*protocol.Stats, n), faulted: make([]int, n)}
		for i := range u.stats {
			u.stats[i] = protocol.NewStats()
		}
		l.units[k] = u
	}
	return u
}

func (l *lines) Ask(ctx context.Context, k int, at engine.At, bot int, line string, input any, check func(string) *engine.Fault) (string, *engine.Fault) {
	u := l.unit(k)
	u.locks[bot].Lock()
	defer u.locks[bot].Unlock()
	if f := l.benched(u, bot, at); f != nil {
		u.stats[bot].Record(f, input)
		return "", f
	}
	start := time.Now()
	reply, f := l.ask(ctx, u, bot, line)
	if f == nil || f.Outcome != engine.HostFault { // the host's failures are not the bot's time
		l.mu.Lock()
		l.spent[bot] += time.Since(start)
		l.mu.Unlock()
	}
	if f == nil && check != nil {
		f = check(reply)
	}
	u.stats[bot].Record(f, input)
	u.faulted[bot] = protocol.Streak(u.faulted[bot], f, f == nil)
	return reply, f
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

// benched is the fault of a decision the bot sits out (protocol.OneShotBench), or nil.
func (l *lines) benched(u *unit, bot int, at engine.At) *engine.Fault {
	l.mu.Lock()
	defer l.mu.Unlock()
	f, b := protocol.OneShotBench(at.Game, u.faulted[bot], l.streak, l.spent[bot], l.budget)
	if f == nil {
		return nil
	}
	if l.stats[bot].Bench() == nil {
		l.stats[bot].SetBench(b)
	}
	l.stats[bot].BenchCalls(1)
	return f
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
	l.fold.End(k, u.stats)
}

// close ends the units still open and adds every unit not yet added, in unit order.
func (l *lines) close() {
	l.mu.Lock()
	open := slices.Collect(maps.Keys(l.units))
	l.mu.Unlock()
	for _, k := range open {
		l.EndUnit(k)
	}
	l.fold.Flush()
}
