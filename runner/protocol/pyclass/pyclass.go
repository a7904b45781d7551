// Package pyclass is the Python-class protocol (forty, White Elephant, Ruins): an answer's
// competing classes are its bots, each hosted in a long-lived harness process speaking one
// JSON line per batch of calls, with CPU budgets, benching and restarts.
package pyclass

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kothd/kothd/runner/build"
	"github.com/kothd/kothd/runner/protocol"
	"github.com/kothd/kothd/runner/sandbox"

	"github.com/kothd/kothd/engine"
)

// The pyclass protocol: an answer is a Python class; an embedded harness provides the
// challenge's base class, executes the answer, and serves calls as JSON lines:
//
//	engine → harness: {"t": <per-call CPU seconds>, "w": <per-call wall seconds>,
//	                   "calls": [{"g": game, "m": method, "a": args}, …]}
//	                  or packed, when every call's args are integers (engine.IntsAppender)
//	                  or none: {"t": …, "w": …, "m": [method, …], "p": base64} (pywire.go)
//	harness → engine: {"replies": [{"r": result} | {"f": outcome, "d": detail}, …]}
//	                  or {"b": "1001"} when every result is a boolean
//
// The engine's first line sets the process up: {"class": <name>, "seed": <seed>}, or
// {"class": ""} to list the answer's classes. Nothing the answer controls goes on the
// command line (a class created at run time may have any name, of any length: one of
// 140,000 characters once made the launch fail with "argument list too long"). The first
// line the harness prints is {"ready": true, "classes": [...]} once the answer's code has
// run, or {"error": "..."} if it could not. One process hosts one class; a batch carries
// one tick of many concurrent games (see engine.Lockstep).

//go:embed harness/pyclass.py
var pyclassHarness []byte

// HarnessDir is where, inside a bot's directory, the harness files are installed.
const HarnessDir = ".harness"

// PyConfig configures the processes of one pyclass tournament.
type PyConfig struct {
	Harness string // the game's module in HarnessDir, e.g. "forty"
	Python  string // interpreter, e.g. /usr/bin/python3 (Debian's, for numpy)
	// CallTimeout is the CPU time one decision may use: the harness interrupts a call past
	// it, or past WallFactor times it in wall time (a call that sleeps or waits).
	CallTimeout  time.Duration
	StartTimeout time.Duration // allowance for importing and executing the answer
	MaxRestarts  int           // a bot whose process dies more often is given up on
	// Budget is the time one bot may spend answering over the whole run, AnswerBudget
	// the time all classes of one answer may, TotalBudget all bots together (0: none of
	// that kind). See budget.go.
	Budget       time.Duration
	AnswerBudget time.Duration
	TotalBudget  time.Duration
	// AnswerWall is the wall time all classes of one answer may take over the run, their
	// start-ups and batches together: what one answer can add to the run's wall time,
	// whatever its classes do (0: AnswerBudget, once). See budget.go.
	AnswerWall time.Duration
	Limits     sandbox.Limits
	// Memo, if set, remembers class listings (ListClasses) by content across cycles.
	Memo build.Memo
	// FaultStreak benches a bot after that many faulted decisions in a row (0: never);
	// Decision says which methods are decisions (nil: all but "end"). See streak.go.
	FaultStreak int
	Decision    func(method string) bool
	// OwnMethods (validation) has the harness refuse a class that does not define the
	// decisions its game module names in OWN_METHODS (harness/pyclass.py, _not_own).
	OwnMethods bool
	// Shares is the run's cgroup: each bot's sandbox goes under its answer's, so an
	// answer's classes share one answer's CPU weight (nil: none; cgroup_share.go).
	Shares *sandbox.Shares
	// PureHarness serves the batches in the harness's Python loop even where kothd can
	// build its C loop (pyfast.go): config python_fast: false.
	PureHarness bool
}

// InstallHarness installs the protocol's harness (pyclass.py) and the game's module
// (module.py, source) into dir/.harness. The directory is the bot's, writable by it:
// WriteBotFile replaces whatever the bot left there (a link to a host file) instead of
// writing through it.
func InstallHarness(dir, module string, source []byte) error {
	if module == "" || module == "pyclass" || strings.ContainsAny(module, "/.") {
		return fmt.Errorf("install harness: bad module name %q", module)
	}
	if err := sandbox.WriteBotFile(dir, harnessScript, pyclassHarness, 0o644); err != nil {
		return err
	}
	return sandbox.WriteBotFile(dir, HarnessDir+"/"+module+".py", source, 0o644)
}

// batchDeadline is how long a bot may take over a batch of n calls before its process is
// killed. The harness interrupts each call at CallTimeout of CPU time or WallFactor times
// that of wall time; this is the backstop for a bot that defeats that (a stopped process,
// a call stuck in C code), capped so that such a bot costs the tournament a bounded wait
// per restart however large the batch.
func (c PyConfig) batchDeadline(n int) time.Duration {
	d := WallFactor * c.CallTimeout * time.Duration(n)
	return min(d, max(30*c.CallTimeout, time.Minute)) + time.Second
}

// DefaultReplyBytes bounds one reply line of a harness when the challenge sets no output
// limit: a batch of a thousand games' answers is a few kilobytes, and a line the runner
// reads is held in memory whole (15 MB lines from 20 classes took the daemon to 650 MB).
const DefaultReplyBytes = 1 << 20

// spec is the process of one harness: only the host's words on its command line, and its
// reply lines bounded.
func (c PyConfig) spec(dir string, share *sandbox.Share) sandbox.ProcSpec {
	l := c.Limits
	if l.OutputBytes <= 0 {
		l.OutputBytes = DefaultReplyBytes
	}
	return sandbox.ProcSpec{Dir: dir, ReadOnlyDir: true, Argv: c.argv(), Limits: l, Share: share}
}

// argv is the harness's command line: only the host's own words.
func (c PyConfig) argv() []string {
	return []string{c.Python, "-u", "-B", c.script(), c.Harness, "bot.py"}
}

// setup is the harness's first input line: which class to host (empty: list them), the
// seed of its random modules, and whether it writes its stats line at the end, timing one
// call in every statsEvery (0: no stats; harness.go, MeasureHarnesses).
func setup(class string, seed uint64, own bool, statsEvery int) []byte {
	b, _ := json.Marshal(struct {
		Class string `json:"class"`
		Seed  uint64 `json:"seed"`
		Own   bool   `json:"own,omitempty"`
		Stats int    `json:"stats,omitempty"`
	}{class, seed, own, statsEvery})
	return b
}

// listClasses executes an answer (dir/bot.py) in the harness and returns its competing
// classes in definition order, or the reason it has none (the answer's exception).
func listClasses(ctx context.Context, sb sandbox.Sandbox, cfg PyConfig, dir string) ([]string, error) {
	if err := cfg.installBuilds(dir); err != nil {
		return nil, &engine.Fault{Outcome: engine.HostFault, Detail: err.Error()}
	}
	return listInstalled(ctx, sb, cfg, dir)
}

// listInstalled is listClasses in a directory whose harness builds are in place.
func listInstalled(ctx context.Context, sb sandbox.Sandbox, cfg PyConfig, dir string) ([]string, error) {
	p, err := sandbox.StartLineProc(ctx, sb, cfg.spec(dir, nil))
	if err != nil {
		return nil, &engine.Fault{Outcome: engine.HostFault, Detail: err.Error()}
	}
	defer p.Close()
	classes, f := handshake(p, setup("", 0, false, 0), cfg.StartTimeout, false)
	if f != nil {
		if err := hostIntact(dir); err != nil {
			return nil, &engine.Fault{Outcome: engine.HostFault, Detail: err.Error()}
		}
		return nil, f
	}
	return classes, nil
}

// handshake sends the setup line and reads the harness's ready line; a firm timeout (a
// budget's end) does not move for a loaded host (sandbox.Receive).
func handshake(p *sandbox.LineProc, setup []byte, timeout time.Duration, firm bool) ([]string, *engine.Fault) {
	line, f := sandbox.Receive(p, p.Send(append(setup, '\n')), timeout, firm)
	if f != nil {
		if f.Outcome == engine.Timeout {
			f.Detail = fmt.Sprintf("not ready within %s", timeout)
		} else if f.Outcome != engine.OutputLimit && f.Outcome != engine.HostFault {
			f.Detail = "exited before it was ready: " + f.Detail
		}
		return nil, f
	}
	var ready struct {
		Ready   bool     `json:"ready"`
		Classes []string `json:"classes"`
		Error   string   `json:"error"`
	}
	if err := json.Unmarshal(line, &ready); err != nil || !ready.Ready {
		p.Kill()
		if ready.Error != "" {
			return nil, &engine.Fault{Outcome: engine.Crash, Detail: ready.Error, ProcessDied: true}
		}
		return nil, &engine.Fault{Outcome: engine.BadOutput, Detail: "harness handshake: " + sandbox.Truncate(string(line), 200), ProcessDied: true}
	}
	return ready.Classes, nil
}

// PyPool hosts the bots of one tournament, one process each, and implements
// engine.Exchanger over them. Processes start lazily and restart after they die.
type PyPool struct {
	mu      sync.Mutex // one Exchange at a time
	cfg     PyConfig
	sb      sandbox.Sandbox
	bots    []*pyProc
	budgets *budgets
	// watchStop ends the budget watcher (pywatch.go); nil when no budget bounds the bots.
	watchStop chan struct{}
	watchDone chan struct{}
}

type pyProc struct {
	engine.Bot
	index    int
	proc     *sandbox.LineProc
	restarts int // processes started (attempts that failed, and processes the host ended, not counted)
	stats    *protocol.Stats
	streak   streak // faulted decisions in a row (streak.go)
	// Reused from batch to batch: the request line and the parsed replies.
	req     []byte
	pack    packer // scratch of packed requests (pywire.go)
	replies []wireReply
	share   *sandbox.Share // its answer's cgroup in the run (nil: none)
	// live is the bot's process while it runs (set and cleared by the bot's worker), for
	// the budget watcher; overBudget is set when the watcher killed it for a spent budget.
	live atomic.Pointer[sandbox.LineProc]
	// measured: the process was started with the harness's stats on (MeasureHarnesses), so
	// Close asks it for its stats line.
	measured bool
	// loaded: Load started (or tried to start) the process ahead and the bot's first batch
	// has not come yet; startFault is why that start failed: the first batch is answered
	// with it, as if it had tried the start itself (pyqueue.go).
	loaded     bool
	startFault *engine.Fault
	overBudget atomic.Bool
	// cpuMu orders the charging of the bot's processes (pywatch.go settle): the worker and
	// the watcher both charge.
	cpuMu sync.Mutex
	// The worker answering the bot's batches (pyqueue.go): its queue, and closed when it
	// has ended. Started by the first batch.
	jobs    chan *pyJob
	stopped chan struct{}
}

// cpuReadEvery is how often at most a process's CPU time is read for its budgets: a bot
// overspends them by at most what it uses in that time.
const cpuReadEvery = 20 * time.Millisecond

// NewPyPool prepares a pool; no process starts until its bot is first called or the pool
// is loaded (Load). Of each bot
// it reads the class name (Name), the prepared directory holding the answer as bot.py
// (Dir), the seed of its process's random and numpy.random (Seed), and AnswerID, which
// groups the classes of one answer for AnswerBudget (0: a built-in bot).
func NewPyPool(sb sandbox.Sandbox, cfg PyConfig, bots []engine.Bot) *PyPool {
	p := &PyPool{cfg: cfg, sb: sb, budgets: newBudgets(cfg, bots)}
	for i, b := range bots {
		p.bots = append(p.bots, &pyProc{Bot: b, index: i, stats: protocol.NewStats(), share: cfg.Shares.Answer(sandbox.AnswerKey(b.AnswerID, i))})
	}
	if p.budgets.bounded() {
		p.watchStop, p.watchDone = make(chan struct{}), make(chan struct{})
		go p.watchBudgets()
	}
	return p
}

// Stats returns the fault accounting of bot i.
func (p *PyPool) Stats(i int) *protocol.Stats { return p.bots[i].stats }

// Close ends every process, all at once: each is given a moment to exit by itself, and
// waiting for them one after another would make a stop take seconds.
func (p *PyPool) Close() {
	p.stopWorkers() // a batch in flight would use its process
	if p.watchStop != nil {
		close(p.watchStop)
		<-p.watchDone
		p.watchStop = nil
	}
	var wg sync.WaitGroup
	for _, b := range p.bots {
		if b.proc != nil {
			wg.Add(1)
			go func(pr *sandbox.LineProc, measured bool) {
				defer wg.Done()
				if measured {
					askStats(pr)
				}
				pr.Close()
			}(b.proc, b.measured)
			b.proc = nil
			b.live.Store(nil)
		}
	}
	wg.Wait()
}

// wireOutcome maps an outcome the harness reported to one a bot may claim. The harness runs
// inside the bot's own interpreter, so its report is the bot's word: it may say it timed
// out, crashed, answered badly or ran out of memory, but never that the host failed (that
// would void the games it is losing) nor that all was well. Anything else is bad output.
func wireOutcome(s string) engine.Outcome {
	switch o := engine.Outcome(s); o {
	case engine.Timeout, engine.Crash, engine.BadOutput, engine.MemoryLimit:
		return o
	}
	return engine.BadOutput
}

// hostIntact reports what is missing of what the host provides a bot: its directory with
// the answer and the harness. A process that cannot start, or dies before it is ready,
// while they are missing failed for the host's reason, not the bot's: under bwrap the
// directory is read-only to the bot, which cannot remove them itself. (A work copy that
// vanished once had a bot charged 13,501 crashes.)
func hostIntact(dir string) error {
	for _, f := range []string{"bot.py", harnessScript} {
		if _, err := os.Lstat(filepath.Join(dir, f)); err != nil {
			return fmt.Errorf("the bot's directory is incomplete on the host: %w", err)
		}
	}
	return nil
}

// procCPU is the CPU time used so far by p's sandbox, children included (its cgroup); ok
// is false where the host cannot tell (then wall time is charged).
func procCPU(p *sandbox.LineProc) (time.Duration, bool) {
	if p == nil {
		return 0, false
	}
	return p.CPUTime()
}
