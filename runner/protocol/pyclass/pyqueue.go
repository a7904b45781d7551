package pyclass

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/kothd/kothd/runner/sandbox"

	"github.com/kothd/kothd/engine"
)

// The exchange path of a PyPool. Each bot has one worker goroutine (kept from tick to tick,
// with the stack its exchanges grew) that writes the bot's share of a tick as one batch and
// reads its reply. engine.Lockstep sends one tick at a time and waits for it, so a bot has
// at most one batch outstanding: a batch's deadline starts when it is written, budgets are
// checked before it starts and charged with what it used, and a batch whose process died
// is answered with faults (the next tick goes to a restarted process).

// pyJob is one bot's share of one batch: the calls idx of calls, answered into the same
// indexes of replies.
type pyJob struct {
	ctx     context.Context
	calls   []engine.Call
	idx     []int
	replies []engine.Reply
	wg      *sync.WaitGroup
	load    bool // no calls: start the bot's process (Load)
}

// Load starts every bot's process at once, each in its worker, and returns when all are
// ready or have failed, with the CPU their sandboxes used to start (engine.Loader). The
// run then pays its bots' start-ups before its first tick, as an original controller loads
// its bots before its first game, and the first tick's wait is the bots' play alone.
// Starting is what the bot's first batch would have done (start): charged to its budgets,
// its wall time bounded the same way; a start that fails is kept and answers that batch.
func (p *PyPool) Load(ctx context.Context) time.Duration {
	var wg sync.WaitGroup
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, b := range p.bots {
		wg.Add(1)
		b.queue(p) <- &pyJob{ctx: ctx, load: true, wg: &wg}
	}
	wg.Wait()
	var cpu time.Duration
	for _, b := range p.bots {
		if b.proc != nil {
			if used, ok := b.proc.Proc.CPU(); ok {
				cpu += used
			}
		}
	}
	return cpu
}

// Exchange sends each bot its share of calls as one batch, all bots in parallel, and waits
// for the replies. Exchanges run one at a time (Close waits for the one in flight).
func (p *PyPool) Exchange(ctx context.Context, calls []engine.Call) []engine.Reply {
	replies := make([]engine.Reply, len(calls))
	byBot := make([][]int, len(p.bots))
	for i, c := range calls {
		if c.Bot < 0 || c.Bot >= len(p.bots) {
			replies[i] = engine.Reply{Fault: &engine.Fault{Outcome: engine.HostFault, Detail: "no such bot"}}
			continue
		}
		byBot[c.Bot] = append(byBot[c.Bot], i)
	}
	var wg sync.WaitGroup
	p.mu.Lock()
	defer p.mu.Unlock()
	for bot, idx := range byBot {
		if len(idx) == 0 {
			continue
		}
		wg.Add(1)
		p.bots[bot].queue(p) <- &pyJob{ctx: ctx, calls: calls, idx: idx, replies: replies, wg: &wg}
	}
	wg.Wait()
	return replies
}

// queue is the bot's worker's queue, the worker started by the first job (p.mu held).
func (b *pyProc) queue(p *PyPool) chan<- *pyJob {
	if b.jobs == nil {
		b.jobs, b.stopped = make(chan *pyJob, 1), make(chan struct{})
		go b.work(p, b.jobs, b.stopped)
	}
	return b.jobs
}

// stopWorkers ends every bot's worker (after the exchange in flight, if any).
func (p *PyPool) stopWorkers() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, b := range p.bots {
		if b.jobs != nil {
			close(b.jobs)
			<-b.stopped
			b.jobs = nil
		}
	}
}

// work answers the bot's batches until its queue is closed.
func (b *pyProc) work(pool *PyPool, jobs <-chan *pyJob, stopped chan<- struct{}) {
	defer close(stopped)
	for job := range jobs {
		if job.load {
			b.load(pool, job.ctx)
		} else {
			b.exchange(pool, job)
		}
		job.wg.Done()
	}
}

// load starts the bot's process ahead of its first batch (Load). What stops a batch
// before its start (a cancelled run, spent budgets) is left to that batch to say; a
// failed start is kept for it (startFault).
func (b *pyProc) load(pool *PyPool, ctx context.Context) {
	if b.proc != nil || ctx.Err() != nil || pool.budgets.exhausted(b.index, b.AnswerID) != "" {
		return
	}
	b.loaded = true
	b.start(ctx, pool, func(f *engine.Fault) { b.startFault = f })
}

// exchange sends job's calls to the bot as one batch and stores their replies.
func (b *pyProc) exchange(pool *PyPool, job *pyJob) {
	ctx, calls, idx, replies := job.ctx, job.calls, job.idx, job.replies
	fail := func(f *engine.Fault) {
		for _, i := range idx {
			replies[i] = engine.Reply{Fault: f}
			b.stats.Record(f, calls[i])
		}
	}
	if ctx.Err() != nil {
		fail(&engine.Fault{Outcome: engine.HostFault, Detail: "run cancelled"})
		return
	}
	// A batch whose start Load made ahead passed its budget check before that start, as
	// it would have here (load): what the start spent is the batch's to meet, as below.
	loaded := b.loaded
	b.loaded = false
	if why := pool.budgets.exhausted(b.index, b.AnswerID); why != "" && !loaded {
		fail(&engine.Fault{Outcome: engine.Timeout, Detail: why})
		return
	}
	if f := b.benched(pool, calls, idx); f != nil { // streak.go
		fail(f)
		return
	}
	b.streak.note(pool.cfg, calls, idx)
	defer b.streak.tally(pool.cfg, idx, replies)
	deadline := pool.cfg.batchDeadline(len(idx))
	if b.proc == nil {
		if f := b.startFault; f != nil {
			b.startFault = nil // the next batch starts the process again, as after any failed start
			fail(f)
			return
		}
		if !b.start(ctx, pool, fail) {
			return
		}
	}
	// The batch is charged to the bot's budgets (settle; the sandbox's CPU clock, a cgroup
	// file, is read at most every cpuReadEvery per process: read after every batch, it cost
	// the daemon more than the rest of the batch's work). It may last no longer than the
	// wall time its budgets have left (the watcher ends it once their CPU time is spent).
	proc := b.proc
	cut := false
	if _, wall, _, ok := pool.budgets.left(b.index, b.AnswerID); ok && wall < deadline {
		deadline, cut = max(wall, time.Millisecond), true
	}
	started := time.Now()
	defer func() { b.settle(pool, proc, time.Since(started), false) }()
	limit := pool.cfg.CallTimeout.Seconds()
	req, err := appendRequest(b.req[:0], &b.pack, limit, WallFactor*limit, calls, idx)
	if err != nil {
		fail(&engine.Fault{Outcome: engine.HostFault, Detail: "encode request: " + err.Error()})
		return
	}
	b.req = append(req, '\n')
	line, f := sandbox.Receive(proc, proc.Send(b.req), deadline, cut)
	if f != nil {
		b.drop()
		if f.Outcome == engine.HostFault {
			// The host ended the process (the kernel made room in the run's memory,
			// the run was cancelled): its start is not counted against the bot, which
			// would otherwise be given up on for the host's kills (an honest leader
			// killed twenty times by two colluders that filled the run).
			b.restarts--
		}
		if b.overBudget.Load() || (cut && f.Outcome == engine.Timeout) {
			f = b.budgetFault(pool)
		}
		fail(f)
		return
	}
	// Nothing the bot started may run on after its reply (sandbox.Process.KillStrays).
	proc.Proc.KillStrays()
	wr, ok := parseReplies(line, len(idx), b.replies)
	if !ok {
		// The harness always answers well-formed JSON; anything else means the bot wrote
		// to the real stdout behind the harness's back. The process's state is suspect.
		b.drop()
		fail(&engine.Fault{Outcome: engine.BadOutput, Detail: "unreadable reply: " + sandbox.Truncate(string(line), 200), ProcessDied: true})
		return
	}
	b.replies = wr
	oks, atLimit := 0, -1 // atLimit: unknown (-1), or whether the process is near its memory limit
	for k, r := range wr {
		i := idx[k]
		if r.F == "" {
			replies[i] = engine.Reply{Result: r.R}
			oks++
			continue
		}
		f := &engine.Fault{Outcome: wireOutcome(r.F), Detail: r.D, ProcessDied: r.Lost}
		// Only an answer can be one the rules read: never a timeout or a memory fault.
		f.Ruled = r.Rules && (f.Outcome == engine.Crash || f.Outcome == engine.BadOutput)
		if f.Outcome == engine.MemoryLimit {
			// The harness's word; the host looks for itself, once per batch.
			if atLimit < 0 {
				atLimit = 0
				if data, ok := proc.DataBytes(); ok && data >= pool.cfg.Limits.MemoryBytes()/2 {
					atLimit = 1
				}
			}
			f.AtLimit = atLimit == 1
		}
		replies[i] = engine.Reply{Fault: f}
		b.stats.Record(f, calls[i])
	}
	b.stats.RecordOK(oks)
}

// drop ends the bot's process after a fault. Its request buffer goes with it: a write to
// the dead process may still be reading it.
func (b *pyProc) drop() {
	b.proc.Close()
	b.live.Store(nil)
	b.proc = nil
	b.req = nil
}

// start starts the bot's process and sets it up (the answer executed, the class chosen).
// The start-up is charged to the bot's budgets like a batch: its sandbox's CPU time, and
// its wall time, which may not pass StartTimeout nor what the budgets have left. On failure
// it fails the batch and returns false.
func (b *pyProc) start(ctx context.Context, pool *PyPool, fail func(*engine.Fault)) bool {
	if b.restarts > pool.cfg.MaxRestarts {
		fail(&engine.Fault{Outcome: engine.Crash, Detail: fmt.Sprintf("gave up after %d restarts", b.restarts-1), ProcessDied: true})
		return false
	}
	// A host failure is no restart of the bot's: it is not counted against it.
	if err := hostIntact(b.Dir); err != nil {
		fail(&engine.Fault{Outcome: engine.HostFault, Detail: err.Error()})
		return false
	}
	if err := pool.cfg.installBuilds(b.Dir); err != nil {
		fail(&engine.Fault{Outcome: engine.HostFault, Detail: err.Error()})
		return false
	}
	timeout, cut := pool.cfg.StartTimeout, false
	if _, wall, _, ok := pool.budgets.left(b.index, b.AnswerID); ok && wall < timeout {
		timeout, cut = max(wall, time.Millisecond), true
	}
	began := time.Now()
	proc, err := sandbox.StartLineProc(ctx, pool.sb, pool.cfg.spec(b.Dir, b.share))
	if err != nil {
		fail(&engine.Fault{Outcome: engine.HostFault, Detail: err.Error()})
		return false
	}
	b.live.Store(proc)
	every := int(measureHarnesses.Load())
	measured := every > 0
	_, f := handshake(proc, setup(b.Name, b.Seed, pool.cfg.OwnMethods, every), timeout, cut)
	if f != nil {
		proc.Close()
		b.live.Store(nil)
		b.settle(pool, proc, time.Since(began), true)
		if err := hostIntact(b.Dir); err != nil {
			fail(&engine.Fault{Outcome: engine.HostFault, Detail: err.Error()})
			return false
		}
		if f.Outcome != engine.HostFault { // the host's failure is no restart of the bot's
			b.restarts++
		}
		if b.overBudget.Load() || (cut && f.Outcome == engine.Timeout) {
			f = b.budgetFault(pool)
		}
		fail(f)
		return false
	}
	b.restarts++
	b.proc, b.measured = proc, measured
	// What the answer's code left running as it was executed goes now.
	proc.Proc.KillStrays()
	b.settle(pool, proc, time.Since(began), true)
	return true
}
