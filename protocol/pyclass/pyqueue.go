package pyclass

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/kothd/kothd/sandbox"

	"github.com/kothd/kothd/engine"
)

// The exchange path of a PyPool. Each bot has one worker goroutine that answers its batches
// in the order they were sent (PyPool.Send queues them), so a batch can be queued while
// the bot is still answering the one before. The worker writes the next queued batch into
// the process's pipe as soon as the current one is written: the harness reads it the
// moment it has answered, without sleeping until the daemon wakes. (engine.Lockstep used
// to keep two batches outstanding, one per group of games; it now sends one per tick and
// waits for it, so in a run the queue holds one batch and nothing is written ahead: only
// a caller of Send with batches outstanding, the tests of this file's paths, uses it.)
//
// What a batch may cost the bot is unchanged by that: its deadline starts when the reply
// before it has been read (when the bot starts on it), budgets are checked before it starts
// and charged with what it used, and a batch written ahead to a process that then died
// (or was killed) is written again to its restarted process.

// pyJob is one bot's share of one batch: the calls idx of calls, answered into the same
// indexes of replies.
type pyJob struct {
	ctx     context.Context
	calls   []engine.Call
	idx     []int
	replies []engine.Reply
	wg      *sync.WaitGroup
	// Set when the request was written ahead: the process it went to and the write.
	proc    *sandbox.LineProc
	written *sandbox.PendingWrite
}

// jobQueue is how many batches may wait for one bot before Send blocks (the lockstep has
// one outstanding).
const jobQueue = 16

// Exchange sends each bot its share of calls as one batch, all bots in parallel, and waits
// for the replies.
func (p *PyPool) Exchange(ctx context.Context, calls []engine.Call) []engine.Reply {
	return p.Send(ctx, calls)()
}

// Send queues each bot's share of calls as one batch behind the batches sent to it before
// and returns at once; receive waits for the replies. (engine.Lockstep sends one batch per
// tick and waits for it: the queue holds more than one only for other callers.)
func (p *PyPool) Send(ctx context.Context, calls []engine.Call) (receive func() []engine.Reply) {
	replies := make([]engine.Reply, len(calls))
	byBot := make([][]int, len(p.bots))
	for i, c := range calls {
		if c.Bot < 0 || c.Bot >= len(p.bots) {
			replies[i] = engine.Reply{Fault: &engine.Fault{Outcome: engine.HostFault, Detail: "no such bot"}}
			continue
		}
		byBot[c.Bot] = append(byBot[c.Bot], i)
	}
	wg := &sync.WaitGroup{}
	p.mu.Lock()
	defer p.mu.Unlock()
	for bot, idx := range byBot {
		if len(idx) == 0 {
			continue
		}
		b := p.bots[bot]
		if b.jobs == nil {
			b.jobs, b.stopped = make(chan *pyJob, jobQueue), make(chan struct{})
			go b.work(p, b.jobs, b.stopped)
		}
		wg.Add(1)
		b.jobs <- &pyJob{ctx: ctx, calls: calls, idx: idx, replies: replies, wg: wg}
	}
	return func() []engine.Reply {
		wg.Wait()
		return replies
	}
}

// stopWorkers ends every bot's worker once its queued batches are answered.
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

// work answers the bot's batches in order until its queue is closed.
func (b *pyProc) work(pool *PyPool, jobs <-chan *pyJob, stopped chan<- struct{}) {
	defer close(stopped)
	var ahead *pyJob
	for {
		job := ahead
		if job == nil {
			var ok bool
			if job, ok = <-jobs; !ok {
				return
			}
		}
		ahead = b.exchange(pool, job, jobs)
		job.wg.Done()
	}
}

// exchange sends job's calls to the bot as one batch (unless it was written ahead to the
// same process), writes the next queued batch behind it if there is one, and stores job's
// replies. It returns the batch written ahead, or the next one taken from the queue.
func (b *pyProc) exchange(pool *PyPool, job *pyJob, jobs <-chan *pyJob) (next *pyJob) {
	ctx, calls, idx, replies := job.ctx, job.calls, job.idx, job.replies
	fail := func(f *engine.Fault) {
		for _, i := range idx {
			replies[i] = engine.Reply{Fault: f}
			b.stats.Record(f, calls[i])
		}
	}
	sent := job.proc != nil && job.proc == b.proc
	stop := func(f *engine.Fault) {
		if sent {
			// Its request is in the process's pipe: the process would answer it next.
			b.drop()
		}
		fail(f)
	}
	if ctx.Err() != nil {
		stop(&engine.Fault{Outcome: engine.HostFault, Detail: "run cancelled"})
		return nil
	}
	if why := pool.budgets.exhausted(b.index, b.AnswerID); why != "" {
		stop(&engine.Fault{Outcome: engine.Timeout, Detail: why})
		return nil
	}
	if f := b.benched(pool, calls, idx); f != nil { // streak.go
		fail(f)
		return nil
	}
	defer b.streak.count(pool.cfg, calls, idx, replies)
	deadline := pool.cfg.batchDeadline(len(idx))
	if b.proc == nil {
		if !b.start(ctx, pool, fail) {
			return nil
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
	written := job.written
	if !sent {
		var f *engine.Fault
		if written, f = b.write(pool, job); f != nil {
			fail(f)
			return nil
		}
	}
	// The next batch is written behind this one as soon as it is queued: at once if it is
	// there already, else when it arrives while the bot answers this one.
	select {
	case next = <-jobs:
		b.writeAhead(pool, next)
	default:
	}
	more := jobs
	if next != nil {
		more = nil
	}
	line, f := sandbox.ReceiveOr(proc, written, deadline, cut, more, func(j *pyJob) {
		next = j
		b.writeAhead(pool, next)
	})
	if f != nil {
		b.drop()
		if b.overBudget.Load() || (cut && f.Outcome == engine.Timeout) {
			f = b.budgetFault(pool)
		}
		fail(f)
		return next
	}
	// Nothing the bot started may run on after its reply (sandbox.Process.KillStrays).
	proc.Proc.KillStrays(next == nil || next.written == nil)
	wr, ok := parseReplies(line, len(idx), b.replies)
	if !ok {
		// The harness always answers well-formed JSON; anything else means the bot wrote
		// to the real stdout behind the harness's back. The process's state is suspect.
		b.drop()
		fail(&engine.Fault{Outcome: engine.BadOutput, Detail: "unreadable reply: " + sandbox.Truncate(string(line), 200), ProcessDied: true})
		return next
	}
	b.replies = wr
	oks := 0
	for k, r := range wr {
		i := idx[k]
		if r.F == "" {
			replies[i] = engine.Reply{Result: r.R}
			oks++
			continue
		}
		f := &engine.Fault{Outcome: wireOutcome(r.F), Detail: r.D, ProcessDied: r.Lost}
		replies[i] = engine.Reply{Fault: f}
		b.stats.Record(f, calls[i])
	}
	b.stats.RecordOK(oks)
	return next
}

// write encodes job's request and starts writing it to the bot's process. Requests are
// encoded into two buffers in turn: one may be in the pipe while the next is written.
func (b *pyProc) write(pool *PyPool, job *pyJob) (*sandbox.PendingWrite, *engine.Fault) {
	limit := pool.cfg.CallTimeout.Seconds()
	buf := &b.req[b.reqTurn]
	req, err := appendRequest((*buf)[:0], &b.pack, limit, WallFactor*limit, job.calls, job.idx)
	if err != nil {
		return nil, &engine.Fault{Outcome: engine.HostFault, Detail: "encode request: " + err.Error()}
	}
	req = append(req, '\n')
	*buf = req
	b.reqTurn ^= 1
	return b.proc.Send(req), nil
}

// writeAhead writes next (the batch queued after the one the bot is answering; nil when the
// queue was closed) behind it to the same process, unless it could not be sent now anyway
// (the run was cancelled, a budget is spent: its own turn settles it).
func (b *pyProc) writeAhead(pool *PyPool, next *pyJob) {
	if next == nil || next.ctx.Err() != nil || pool.budgets.exhausted(b.index, b.AnswerID) != "" || b.streak.benched {
		return
	}
	if w, f := b.write(pool, next); f == nil {
		next.proc, next.written = b.proc, w
	}
}

// drop ends the bot's process after a fault. Its request buffers go with it: a write to
// the dead process may still be reading one.
func (b *pyProc) drop() {
	b.proc.Close()
	b.live.Store(nil)
	b.proc = nil
	b.req = [2][]byte{}
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
	_, f := handshake(proc, setup(b.Name, b.Seed, pool.cfg.OwnMethods), timeout, cut)
	if f != nil {
		proc.Close()
		b.live.Store(nil)
		b.settle(pool, proc, time.Since(began), true)
		if err := hostIntact(b.Dir); err != nil {
			fail(&engine.Fault{Outcome: engine.HostFault, Detail: err.Error()})
			return false
		}
		b.restarts++
		if b.overBudget.Load() || (cut && f.Outcome == engine.Timeout) {
			f = b.budgetFault(pool)
		}
		fail(f)
		return false
	}
	b.restarts++
	b.proc = proc
	// What the answer's code left running as it was executed goes now.
	proc.Proc.KillStrays(true)
	b.settle(pool, proc, time.Since(began), true)
	return true
}
