package sandbox

import (
	"fmt"
	"time"

	"github.com/kothd/kothd/engine"
)

// Whose is a decision stopped by the wall clock? The wall limit is for a bot that sleeps
// or waits; but on a contended host (an answer of spinners, other work on the machine) a
// bot that used well under its CPU time waits that long for a CPU too. That is the host's
// doing, and counting it against the bot disqualified an honest White Elephant bot in 4
// games of 4.
//
// The kernel tells the two apart: /proc/<pid>/schedstat counts, per thread, the time it ran
// and the time it was runnable but waited for a CPU. A Python-class call's wall limit is
// pushed back by the time the serving thread waited for a CPU (the harness reads its own
// schedstat when the limit comes: pyclass.py _host_wait), so a starved call runs on until
// its CPU limit stops it, and one the wall clock stops is the bot's own waiting. A one-shot
// bot's decision (Bank Heist, Mafia) has a fixed wall limit: as it times out the launcher
// reads the schedstat of every thread of the bot's main process (launcher.py sched_of), and
// the runner subtracts the CPU time the rest of the sandbox used meanwhile (the bot's own
// children can keep it waiting too): a wait of at least half the decision's time, by a
// sandbox (and an answer: its sandboxes in other tournaments) that used less than half of
// it, is the host's (use.starved, launcher.go). A
// starved decision voids its game, so the bot must not be able to starve itself: the wait
// is the longest of one thread, never a sum over threads (fifty spinning threads summed
// to fifty times the decision); a sandbox that had a CPU for half the decision was not kept
// from one; and the seccomp filter denies pinning to a CPU and lowering one's priority,
// through which an accomplice spinning beside it could starve it at will.

// starved turns a decision's wall-clock timeout into a host fault when the host kept the
// bot's main process from a CPU for at least half of the decision's time while the sandbox
// used less than half of it (starve.go): the longest wait for a CPU of one of its threads
// as the launcher read it from the kernel, less the CPU time the rest of the sandbox used
// meanwhile (the bot's own children can keep it waiting too, and the launcher's own few
// milliseconds count against the bot). A bot that sleeps past its timeout waits for no
// CPU: its timeout stays its own.
func (u use) starved(after use, rep *launchReply, timeout time.Duration, f *engine.Fault) *engine.Fault {
	if !u.counted || !after.counted || rep.Run == nil || rep.Wait == nil {
		return f
	}
	used := after.cpu - u.cpu
	answerUsed := used
	if u.answerOK && after.answerOK {
		answerUsed = max(used, after.answer-u.answer)
	}
	if answerUsed >= timeout/2 {
		// It had a CPU, or its answer did (its decision in another tournament spinning
		// beside it): whatever its threads waited, the answer kept it waiting.
		return f
	}
	others := used - time.Duration(*rep.Run)
	wait := time.Duration(*rep.Wait) - max(others, 0)
	if wait < timeout/2 {
		return f
	}
	return &engine.Fault{Outcome: engine.HostFault, Detail: fmt.Sprintf("%s; the host kept it from a CPU for %s of it (not the bot's fault)",
		f.Detail, wait.Round(time.Millisecond))}
}
