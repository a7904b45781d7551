package runner

import (
	"strconv"
	"strings"
	"time"
)

// Whose is a call stopped by the wall clock? The harness stops a call past WallFactor
// times its CPU limit in wall time, for a bot that sleeps or waits; but on a contended host
// (an answer of spinners, other work on the machine) a bot that used well under its CPU
// time waits that long for a CPU too. That is the host's doing, and counting it against
// the bot disqualified an honest White Elephant bot in 4 games of 4.
//
// The kernel tells the two apart: /proc/<pid>/schedstat counts, per thread, the time it ran
// and the time it was runnable but waited for a CPU. The runner reads the harness's main
// thread (the one that runs the calls) and the sandbox's CPU time (its cgroup) around the
// batch; both are the kernel's figures, which the bot cannot change. The bot's own other
// threads and processes may also have kept the harness from a CPU (the sandbox gets one
// CPU's bandwidth), so the wait the host caused is the thread's wait less the CPU time the
// rest of the sandbox used meanwhile. A call stopped by the wall clock was off a CPU for
// at least (WallFactor-1) CPU limits; it is the host's when the host kept the harness
// waiting for at least half of that. A batch with k such calls needs k times as much: a
// bot cannot pass off its own sleeping on a host that kept it waiting only a little.

// schedStat is one thread's time on a CPU and time waiting for one.
type schedStat struct {
	run, wait time.Duration
}

// readSchedStat reads /proc/<pid>/schedstat through f (opened on first use).
func readSchedStat(f *liveFile, pid int) (schedStat, bool) {
	if pid <= 0 {
		return schedStat{}, false
	}
	var buf [128]byte
	data, err := f.read("/proc/"+strconv.Itoa(pid)+"/schedstat", buf[:])
	if err != nil {
		return schedStat{}, false
	}
	fields := strings.Fields(string(data))
	if len(fields) < 2 {
		return schedStat{}, false
	}
	run, err1 := strconv.ParseInt(fields[0], 10, 64)
	wait, err2 := strconv.ParseInt(fields[1], 10, 64)
	if err1 != nil || err2 != nil {
		return schedStat{}, false
	}
	return schedStat{run: time.Duration(run), wait: time.Duration(wait)}, true
}

// usage is what a bot's sandbox (cpu) and its harness's main thread (sched) had used at
// one moment; ok only when both are known.
type usage struct {
	cpu   time.Duration
	sched schedStat
	ok    bool
}

// hostWait is how long, between u and later, the host kept the harness from a CPU that
// the bot's own other threads and processes were not using.
func (u usage) hostWait(later usage) time.Duration {
	if !u.ok || !later.ok {
		return 0
	}
	wait := later.sched.wait - u.sched.wait
	others := (later.cpu - u.cpu) - (later.sched.run - u.sched.run)
	return wait - max(others, 0)
}

// hostTimeouts is how many of k calls stopped by the wall clock a host wait explains.
func hostTimeouts(wait time.Duration, k int, cpuLimit time.Duration) int {
	per := (WallFactor - 1) * cpuLimit / 2
	if per <= 0 || wait <= 0 {
		return 0
	}
	return min(k, int(wait/per))
}
