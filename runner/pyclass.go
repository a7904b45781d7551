package runner

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"kothd/engine"
)

// The pyclass protocol: an answer is a Python class; an embedded harness provides the
// challenge's base class, executes the answer, and serves calls as JSON lines:
//
//	engine → harness: {"t": <per-call seconds>, "calls": [{"g": game, "m": method, "a": args}, …]}
//	harness → engine: {"replies": [{"r": result} | {"f": outcome, "d": detail}, …]}
//
// The first line the harness prints is {"ready": true, "classes": [...]} once the answer's
// code has run, or {"error": "..."} if it could not. One process hosts one class; a batch
// carries one tick of many concurrent games (see engine.Lockstep).

//go:embed harness/pyclass.py
var pyclassHarness []byte

// HarnessDir is where, inside a bot's directory, the harness files are installed.
const HarnessDir = ".harness"

// PyConfig configures the processes of one pyclass tournament.
type PyConfig struct {
	Harness      string        // the game's module in HarnessDir, e.g. "forty"
	Python       string        // interpreter, e.g. /usr/bin/python3 (Debian's, for numpy)
	CallTimeout  time.Duration // per decision; the harness interrupts a call that exceeds it
	StartTimeout time.Duration // allowance for importing and executing the answer
	MaxRestarts  int           // a bot whose process dies more often is given up on
	// Budget is the wall time one bot may spend answering over the whole run (0: no
	// budget). Games run in lockstep, so a slow bot holds every other game up; past its
	// budget its calls get the rules' default at once, counted as timeouts.
	Budget time.Duration
	Limits Limits
	// Memo, if set, remembers class listings (ListClasses) by content across cycles.
	Memo Memo
}

// PyBot is one competing class in a prepared directory (holding the answer as bot.py).
type PyBot struct {
	Name string // class name
	Dir  string
	Seed uint64 // seeds the process's random and numpy.random, for reproducible runs
}

// InstallHarness installs the protocol's harness (pyclass.py) and the game's module
// (module.py, source) into dir/.harness. The directory is the bot's, writable by it:
// WriteBotFile replaces whatever the bot left there (a link to a host file) instead of
// writing through it.
func InstallHarness(dir, module string, source []byte) error {
	if module == "" || module == "pyclass" || strings.ContainsAny(module, "/.") {
		return fmt.Errorf("install harness: bad module name %q", module)
	}
	if err := WriteBotFile(dir, HarnessDir+"/pyclass.py", pyclassHarness, 0o644); err != nil {
		return err
	}
	return WriteBotFile(dir, HarnessDir+"/"+module+".py", source, 0o644)
}

// batchDeadline is how long a bot may take over a batch of n calls before its process is
// killed. The harness interrupts each call at CallTimeout; this is the backstop for a bot
// that defeats that (a stopped process, a call stuck in C code), capped so that such a bot
// costs the tournament a bounded wait per restart however large the batch.
func (c PyConfig) batchDeadline(n int) time.Duration {
	d := c.CallTimeout * time.Duration(n)
	return min(d, max(30*c.CallTimeout, time.Minute)) + time.Second
}

func (c PyConfig) argv(class string, seed uint64) []string {
	return []string{c.Python, "-u", "-B", HarnessDir + "/pyclass.py", c.Harness, "bot.py", class, strconv.FormatUint(seed, 10)}
}

// listClasses executes an answer (dir/bot.py) in the harness and returns its competing
// classes in definition order, or the reason it has none (the answer's exception).
func listClasses(ctx context.Context, sb Sandbox, cfg PyConfig, dir string) ([]string, error) {
	p, err := startLineProc(ctx, sb, ProcSpec{Dir: dir, ReadOnlyDir: true, Argv: cfg.argv("", 0), Limits: cfg.Limits})
	if err != nil {
		return nil, &engine.Fault{Outcome: engine.HostFault, Detail: err.Error()}
	}
	defer p.close()
	classes, f := p.handshake(cfg.StartTimeout)
	if f != nil {
		return nil, f
	}
	return classes, nil
}

// handshake reads the harness's ready line.
func (p *lineProc) handshake(timeout time.Duration) ([]string, *engine.Fault) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var l lineOrErr
	select {
	case l = <-p.lines:
	case <-p.stop:
		return nil, p.cancelled()
	case <-timer.C:
		p.kill()
		return nil, &engine.Fault{Outcome: engine.Timeout, Detail: fmt.Sprintf("not ready within %s", timeout), ProcessDied: true}
	}
	if l.err != nil {
		return nil, p.died("exited before it was ready")
	}
	var ready struct {
		Ready   bool     `json:"ready"`
		Classes []string `json:"classes"`
		Error   string   `json:"error"`
	}
	if err := json.Unmarshal(l.line, &ready); err != nil || !ready.Ready {
		p.kill()
		if ready.Error != "" {
			return nil, &engine.Fault{Outcome: engine.Crash, Detail: ready.Error, ProcessDied: true}
		}
		return nil, &engine.Fault{Outcome: engine.BadOutput, Detail: "harness handshake: " + truncate(string(l.line), 200), ProcessDied: true}
	}
	return ready.Classes, nil
}

// PyPool hosts the bots of one tournament, one process each, and implements
// engine.Exchanger over them. Processes start lazily and restart after they die.
type PyPool struct {
	cfg  PyConfig
	sb   Sandbox
	bots []*pyProc
}

type pyProc struct {
	PyBot
	proc     *lineProc
	restarts int
	used     time.Duration // wall time spent in this bot's batches
	stats    *Stats
}

// NewPyPool prepares a pool; no process starts until its bot is first called.
func NewPyPool(sb Sandbox, cfg PyConfig, bots []PyBot) *PyPool {
	p := &PyPool{cfg: cfg, sb: sb}
	for _, b := range bots {
		p.bots = append(p.bots, &pyProc{PyBot: b, stats: newStats()})
	}
	return p
}

// Stats returns the fault accounting of bot i.
func (p *PyPool) Stats(i int) *Stats { return p.bots[i].stats }

// Close ends every process, all at once: each is given a moment to exit by itself, and
// waiting for them one after another would make a stop take seconds.
func (p *PyPool) Close() {
	var wg sync.WaitGroup
	for _, b := range p.bots {
		if b.proc != nil {
			wg.Add(1)
			go func(pr *lineProc) { defer wg.Done(); pr.close() }(b.proc)
			b.proc = nil
		}
	}
	wg.Wait()
}

// Exchange sends each bot its share of calls as one batch, all bots in parallel.
func (p *PyPool) Exchange(ctx context.Context, calls []engine.Call) []engine.Reply {
	replies := make([]engine.Reply, len(calls))
	byBot := map[int][]int{}
	for i, c := range calls {
		byBot[c.Bot] = append(byBot[c.Bot], i)
	}
	var wg sync.WaitGroup
	for bot, idx := range byBot {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if bot < 0 || bot >= len(p.bots) {
				for _, i := range idx {
					replies[i] = engine.Reply{Fault: &engine.Fault{Outcome: engine.HostFault, Detail: "no such bot"}}
				}
				return
			}
			batch := make([]engine.Call, len(idx))
			for k, i := range idx {
				batch[k] = calls[i]
			}
			for k, r := range p.bots[bot].exchange(ctx, p, batch) {
				replies[idx[k]] = r
			}
		}()
	}
	wg.Wait()
	return replies
}

type wireCall struct {
	G int    `json:"g"`
	M string `json:"m"`
	A any    `json:"a"`
}

type wireReply struct {
	R json.RawMessage `json:"r"`
	F string          `json:"f"`
	D string          `json:"d"`
	// Lost: the call named a game whose instance died with an earlier process.
	Lost bool `json:"lost"`
}

func (b *pyProc) exchange(ctx context.Context, pool *PyPool, batch []engine.Call) []engine.Reply {
	out := make([]engine.Reply, len(batch))
	fail := func(f *engine.Fault) []engine.Reply {
		for i := range out {
			out[i] = engine.Reply{Fault: f}
			b.stats.record(f, batch[i])
		}
		return out
	}
	if ctx.Err() != nil {
		return fail(&engine.Fault{Outcome: engine.HostFault, Detail: "run cancelled"})
	}
	if budget := pool.cfg.Budget; budget > 0 && b.used >= budget {
		return fail(&engine.Fault{Outcome: engine.Timeout, Detail: fmt.Sprintf("spent its time budget for this run (%s); calls get the default", budget)})
	}
	started := time.Now()
	defer func() { b.used += time.Since(started) }()
	deadline := pool.cfg.batchDeadline(len(batch))
	if b.proc == nil {
		if b.restarts > pool.cfg.MaxRestarts {
			return fail(&engine.Fault{Outcome: engine.Crash, Detail: fmt.Sprintf("gave up after %d restarts", b.restarts-1), ProcessDied: true})
		}
		b.restarts++
		proc, err := startLineProc(ctx, pool.sb, ProcSpec{Dir: b.Dir, ReadOnlyDir: true, Argv: pool.cfg.argv(b.Name, b.Seed), Limits: pool.cfg.Limits})
		if err != nil {
			return fail(&engine.Fault{Outcome: engine.HostFault, Detail: err.Error()})
		}
		if _, f := proc.handshake(pool.cfg.StartTimeout); f != nil {
			proc.close()
			return fail(f)
		}
		b.proc = proc
	}
	wc := make([]wireCall, len(batch))
	for i, c := range batch {
		wc[i] = wireCall{G: c.Game, M: c.Method, A: c.Args}
	}
	req, err := json.Marshal(struct {
		T     float64    `json:"t"`
		Calls []wireCall `json:"calls"`
	}{pool.cfg.CallTimeout.Seconds(), wc})
	if err != nil {
		return fail(&engine.Fault{Outcome: engine.HostFault, Detail: "encode request: " + err.Error()})
	}
	line, f := b.proc.roundTrip(req, deadline)
	if f != nil {
		b.proc.close()
		b.proc = nil
		return fail(f)
	}
	var resp struct {
		Replies []wireReply `json:"replies"`
	}
	if err := json.Unmarshal(line, &resp); err != nil || len(resp.Replies) != len(batch) {
		// The harness always answers well-formed JSON; anything else means the bot wrote
		// to the real stdout behind the harness's back. The process's state is suspect.
		b.proc.close()
		b.proc = nil
		return fail(&engine.Fault{Outcome: engine.BadOutput, Detail: "unreadable reply: " + truncate(string(line), 200), ProcessDied: true})
	}
	for i, r := range resp.Replies {
		if r.F == "" {
			out[i] = engine.Reply{Result: r.R}
			b.stats.record(nil, batch[i])
			continue
		}
		f := &engine.Fault{Outcome: wireOutcome(r.F), Detail: r.D, ProcessDied: r.Lost}
		out[i] = engine.Reply{Fault: f}
		b.stats.record(f, batch[i])
	}
	return out
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

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
