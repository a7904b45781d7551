package pyclass

import (
	"fmt"
	"time"

	"github.com/kothd/kothd/runner/sandbox"

	"github.com/kothd/kothd/engine"
)

// Charging a pyclass bot's budgets, and ending it the moment one is spent.
//
// A bot's sandbox is charged for all the CPU time its cgroup counts, from the sandbox's
// creation: starting the interpreter and executing the answer (once uncharged, so twenty
// restarts cost twenty start-up allowances), every batch, and whatever the bot's processes
// do between batches. The worker charges after each start-up and batch; the budget watcher
// charges the processes that run between, and kills a sandbox whose bot has spent a
// budget whether or not a request is in flight: children that spin on after a reply, or a
// thread the bot left running, used to go on until the bot's next call.

// budgetCheckMin and budgetCheckMax bound the watcher's sleep: it wakes when the soonest
// budget could be spent (a sandbox uses at most sandboxCPUs), and at least this often.
const (
	budgetCheckMin = 20 * time.Millisecond
	budgetCheckMax = time.Second
)

// settle charges the budgets with what process proc's sandbox used since it was last
// charged (CPU time by its cgroup, which counts from the sandbox's creation; wall time
// where the host cannot tell), and wall of wall time. Unless force, the cgroup is read at
// most every cpuReadEvery (its CPU time is charged at the next reading). It returns the
// reading, if one was taken. What was charged is kept with the process: the watcher may
// charge a process the worker has just replaced.
func (b *pyProc) settle(pool *PyPool, proc *sandbox.LineProc, wall time.Duration, force bool) (time.Duration, bool) {
	b.cpuMu.Lock()
	defer b.cpuMu.Unlock()
	now := time.Now()
	var used, cpu time.Duration
	read := false
	if force || now.Sub(proc.CPUReadAt) >= cpuReadEvery {
		var ok bool
		cpu, ok = procCPU(proc)
		used = wall
		if ok {
			used = cpu - proc.CPUCharged
			proc.CPUCharged = cpu
		}
		proc.CPUReadAt, read = now, ok
	}
	pool.budgets.charge(b.index, b.AnswerID, used, wall)
	return cpu, read
}

// watchBudgets charges and checks the budgets of every running bot until the pool closes.
func (p *PyPool) watchBudgets() {
	defer close(p.watchDone)
	timer := time.NewTimer(budgetCheckMin)
	defer timer.Stop()
	for {
		select {
		case <-p.watchStop:
			return
		case <-timer.C:
		}
		next := budgetCheckMax
		for _, b := range p.bots {
			proc := b.live.Load()
			if proc == nil {
				continue
			}
			if _, ok := b.settle(p, proc, 0, true); !ok {
				continue // no cgroup: the worker charges wall time per batch
			}
			if why := p.budgets.exhausted(b.index, b.AnswerID); why != "" {
				b.overBudget.Store(true)
				if proc.Alive() {
					proc.Proc.Kill()
				}
				continue
			}
			if cpu, _, perClass, ok := p.budgets.left(b.index, b.AnswerID); ok {
				next = min(next, min(cpu, perClass)/sandbox.SandboxCPUs)
			}
		}
		timer.Reset(max(next, budgetCheckMin))
	}
}

// budgetFault is the fault of a call cut short because its bot spent a budget.
func (b *pyProc) budgetFault(pool *PyPool) *engine.Fault {
	why := pool.budgets.tightest(b.index, b.AnswerID)
	if why == "" {
		why = "spent its time budget for this run; calls get the default"
	}
	return &engine.Fault{Outcome: engine.Timeout, Detail: fmt.Sprintf("%s (its sandbox was ended as it spent it)", why), ProcessDied: true}
}
