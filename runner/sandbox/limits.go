package sandbox

import (
	"strconv"
	"strings"

	"github.com/kothd/kothd/engine"
)

// Defaults the bwrap sandbox applies to a zero Limits field. A sandbox never runs a bot
// without a memory, process, open-file and file-size bound; CPU time is unbounded unless
// asked for, because a pyclass process lives for a whole tournament and the per-call
// wall-clock limits already stop a spinning bot.
const (
	DefaultMemoryMB   = 1024
	DefaultProcs      = 128
	DefaultOpenFiles  = 512
	DefaultFileSizeMB = 64
)

// addressSpaceSlack is added to MemoryMB for the address-space backstop (RLIMIT_AS). The
// JVM reserves about 1 GiB of compressed class space and a large heap range up front, and
// refuses to start under an address-space limit below about 4 GiB even when it would use
// far less.
const addressSpaceSlack = 4 << 30

// withDefaults fills the zero fields the bwrap sandbox must bound.
func (l Limits) withDefaults() Limits {
	if l.MemoryMB <= 0 {
		l.MemoryMB = DefaultMemoryMB
	}
	if l.Procs <= 0 {
		l.Procs = DefaultProcs
	}
	if l.OpenFiles <= 0 {
		l.OpenFiles = DefaultOpenFiles
	}
	if l.FileSizeMB <= 0 {
		l.FileSizeMB = DefaultFileSizeMB
	}
	return l
}

// MemoryBytes is the memory a process of the sandbox may hold (RLIMIT_DATA), in bytes.
func (l Limits) MemoryBytes() int64 { return int64(l.withDefaults().MemoryMB) << 20 }

// prlimit returns the command prefix that applies l to the bot and then executes it.
//
// bwrap sets no resource limits, so something inside the sandbox must, after the
// namespaces exist (see rootChain for why the order matters) and before the bot's first
// instruction. prlimit(1) from util-linux, which every Debian system has, does exactly
// that with one execve; the alternative, re-executing the kothd binary as a tiny helper,
// would need that binary bound into every sandbox and cost a Go runtime start per launch.
//
//   - Memory is RLIMIT_DATA: private writable memory (heap, anonymous mappings), which is
//     what an allocation exhausts; Python raises MemoryError, malloc returns NULL. Unlike
//     RLIMIT_AS it leaves the JVM's and V8's address-space reservations alone. RLIMIT_AS
//     at MemoryMB + 4 GiB backs it up against shared anonymous mappings, which
//     RLIMIT_DATA does not count.
//   - CPU time is RLIMIT_CPU: SIGXCPU at the limit (a timeout), SIGKILL a second later
//     for a bot that ignores it. Each process has its own, so the sandbox's cgroup
//     charges the total (sandboxCgroup.watchCPU).
//   - Processes are RLIMIT_NPROC (threads count too), counted per sandbox.
//   - Open files are RLIMIT_NOFILE; file size is RLIMIT_FSIZE (SIGXFSZ, an output limit).
//     The bot's directory, the only writable place, has a total allowance: a filesystem
//     of its own (botfs.go), or a check after each decision (diskuse.go).
//
// The cgroup adds what per-process limits cannot: MemoryMB and Procs for the sandbox as
// a whole.
//   - Core dumps are off.
func (b *Bwrap) prlimit(l Limits) []string {
	mem := int64(l.MemoryMB) << 20
	a := []string{b.prlimitPath,
		"--data=" + strconv.FormatInt(mem, 10),
		"--as=" + strconv.FormatInt(mem+addressSpaceSlack, 10),
		"--nproc=" + strconv.Itoa(l.Procs),
		"--nofile=" + strconv.Itoa(l.OpenFiles),
		"--fsize=" + strconv.FormatInt(int64(l.FileSizeMB)<<20, 10),
		"--core=0",
	}
	if l.CPUTime > 0 {
		secs := max(int64((l.CPUTime+999_999_999)/1_000_000_000), 1)
		a = append(a, "--cpu="+strconv.FormatInt(secs, 10)+":"+strconv.FormatInt(secs+1, 10))
	}
	return append(a, "--")
}

// classifyExit names how a bot process that ended with err (from its Wait) failed, using
// everything the runner knows: a sandbox that never ran the bot is a HostFault; a sandbox
// its cgroup stopped for CPU time is a Timeout; the wait status is read by exitOutcome; a
// crash or kill after one of the sandbox's processes was killed for memory at a bound of
// its own (its sandbox's, its answer's, its answer's share of the run's: memkill.go), or
// whose stderr tail shows the language runtime running out of memory, is a MemoryLimit;
// one the kernel killed to make room in the run's memory, shared by every answer, while
// its answer held no more than its share of it is a HostFault (RunMemoryKill). The stderr
// test is the bot's own text, so a bot could only misname its own crash with it, never
// blame the host.
func classifyExit(p *Process, err error, stderrTail string) engine.Outcome {
	return classifyKilled(p, err, stderrTail, p.oomKilled())
}

// classifyKilled is classifyExit with the sandbox's kill for memory already read
// (Process.oomKilled), for a caller that reports it too and must not read it twice.
func classifyKilled(p *Process, err error, stderrTail string, kill memKill) engine.Outcome {
	if sandboxFailed(p, err) {
		return engine.HostFault
	}
	if p.cpuOver() {
		return engine.Timeout
	}
	o := exitOutcome(err)
	if o == engine.Crash || o == engine.Killed {
		if kill.own() {
			return engine.MemoryLimit
		} else if kill.killed() {
			return engine.HostFault // killed to make room in the run's memory (judgeKill)
		}
	}
	if o == engine.Crash && outOfMemory(stderrTail) {
		return engine.MemoryLimit
	}
	return o
}

// RunMemoryKill says why a bot's process died the host's fault: the kernel killed it
// when the run's bots together filled limits.total_memory_mb, while its sandbox was under
// its own memory_mb and its answer under its half of the run's bound and within its share
// of it (the run's bound over its answers), so other answers held more than theirs
// (sandboxCgroup.judgeKill). The game is the host's to void, not the bot's to lose: the
// kernel picks the largest process under the run, which need not be an answer that
// filled it.
const RunMemoryKill = "the kernel killed it when the run's bots together filled their memory (limits.total_memory_mb), while it was under its own memory_mb and its answer within its share of the run's: not the bot's fault"

// oomMarks are what the supported languages print when an allocation fails under
// RLIMIT_DATA: Python, C++ (libstdc++), Java, Go, Node, and glibc/perror's ENOMEM text.
var oomMarks = []string{
	"MemoryError", "std::bad_alloc", "java.lang.OutOfMemoryError", "runtime: out of memory",
	"JavaScript heap out of memory", "Cannot allocate memory", "out of memory",
}

// outOfMemory reports whether a process's last words name an exhausted memory limit.
func outOfMemory(stderrTail string) bool {
	// Only the end counts: the fatal error is the last thing a runtime prints.
	if len(stderrTail) > 600 {
		stderrTail = stderrTail[len(stderrTail)-600:]
	}
	for _, m := range oomMarks {
		if strings.Contains(stderrTail, m) {
			return true
		}
	}
	return false
}
