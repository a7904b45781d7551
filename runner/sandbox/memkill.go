package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Whose a kill for memory is. A sandbox's processes can be killed for memory at four
// bounds: the sandbox's own (memory_mb), its answer's (half of limits.total_memory_mb),
// the run's (limits.total_memory_mb, where the kernel kills the largest process under the
// run, whoever's), and the run's memory watcher (memwatch.go), which stops the answer
// furthest above its share before the run is full. Only the third can hit a bot that did
// nothing wrong, so only there is a kill the host's, and only when the evidence shows it:
//
//   - The kernel counts a kill (v1 memory.oom_control's oom_kill, v2 memory.events'
//     oom_kill) in the victim's cgroup, not in the one whose limit was reached. Which
//     limit that was is read from each level's own evidence: v2's memory.events(.local)
//     `oom` and `max` counters; v1's memory.failcnt and memory.memsw.failcnt (which Linux
//     6.18 leaves at 0 at every level, whichever limit the kernel killed at: a check of
//     them alone called a bot's kill at its own limit the run's); and at every level the
//     cgroup's peak (v1 memory.max_usage_in_bytes and memsw's, v2 memory.peak) against its
//     limit: the kernel kills at a limit only once the usage has reached it (on 6.18 the
//     peak of the cgroup whose limit it was is then exactly that limit).
//   - A kill is the bot's unless the run's bound is shown reached while its sandbox and
//     its answer are shown under theirs and its answer held no more than its share of the
//     run (limits.total_memory_mb over the answers in the run) at its peak: then the other
//     answers together held more than theirs, and the game is the host's to void
//     (RunMemoryKill). Missing evidence (a file the kernel lacks, a sandbox under no run,
//     a kill at none of the bounds: the machine's own OOM killer) leaves the kill the
//     bot's: a bot cannot void a game by being killed in a way the host cannot explain.

// memBound is the bound a sandbox's processes were killed at.
type memBound int

const (
	boundNone        memBound = iota // no kill for memory
	boundSandbox                     // the sandbox's own memory_mb
	boundAnswer                      // its answer's half of the run's memory
	boundShare                       // the run's watcher stopped its answer, furthest above its share
	boundRunShare                    // the kernel at the run's bound, its answer above its share
	boundRun                         // the kernel at the run's bound, its answer within its share: the host's
	boundUnexplained                 // the kernel killed it at no bound shown reached: the bot's
)

// memKill is a kill for memory and the figures that explain it (MiB).
type memKill struct {
	Bound     memBound
	SandboxMB int64 // the sandbox's limit
	AnswerMB  int64 // its answer's bound (half the run's)
	RunMB     int64 // the run's bound (limits.total_memory_mb)
	ShareMB   int64 // its answer's share of the run: RunMB over Answers
	Answers   int   // answers in the run
	HeldMB    int64 // what its answer held: at the watcher's look, or at its peak
	UsedPct   int   // how full the run was at the watcher's look
}

// killed reports whether the kill happened.
func (k memKill) killed() bool { return k.Bound != boundNone }

// own reports whether the kill is the bot's fault: every kill but boundRun.
func (k memKill) own() bool { return k.Bound != boundNone && k.Bound != boundRun }

// atLimit reports a kill at the bot's own bounds, its sandbox's or its answer's
// (engine.Fault.AtLimit: a run whose bot filled them with many games in flight is played
// again with fewer, cron/crowd.go). A kill for its answer's share of the run is not one:
// the share depends on what the other answers hold.
func (k memKill) atLimit() bool { return k.Bound == boundSandbox || k.Bound == boundAnswer }

// detail says which bound the bot's processes were killed at, in the words of a fault.
func (k memKill) detail() string {
	switch k.Bound {
	case boundSandbox:
		if k.SandboxMB <= 0 {
			return "its processes together passed the sandbox's memory (memory_mb)"
		}
		return fmt.Sprintf("its processes together passed the sandbox's %d MiB (memory_mb)", k.SandboxMB)
	case boundAnswer:
		return fmt.Sprintf("its answer's processes together passed the answer's %d MiB, half of the run's memory (limits.total_memory_mb %d MiB)", k.AnswerMB, k.RunMB)
	case boundShare:
		return fmt.Sprintf("the run's memory was %d%% full and its answer held %d MiB, the most above its share of %d MiB (limits.total_memory_mb %d MiB among %d answers): its answer's processes were stopped",
			k.UsedPct, k.HeldMB, k.ShareMB, k.RunMB, k.Answers)
	case boundRunShare:
		return fmt.Sprintf("the run's bots together filled the run's memory (limits.total_memory_mb %d MiB) while its answer held %d MiB, more than its share of %d MiB among %d answers",
			k.RunMB, k.HeldMB, k.ShareMB, k.Answers)
	case boundRun:
		return RunMemoryKill + fmt.Sprintf(" (its answer held at most %d MiB of its share of %d MiB; limits.total_memory_mb %d MiB among %d answers)", k.HeldMB, k.ShareMB, k.RunMB, k.Answers)
	case boundUnexplained:
		return "the kernel killed a process of it for memory; no bound of its sandbox, answer or run was seen reached (the machine's memory)"
	}
	return ""
}

// judgeKill says at which bound the kernel killed the sandbox's processes, from the
// evidence its cgroup, its answer's and its run's hold (see above); the sandbox's answer
// and run are its parent and grandparent in the memory hierarchy. cg.mu held, not
// released.
func (cg *sandboxCgroup) judgeKill() memKill {
	v2 := cg.Tree.V2
	dir := cg.Dir(cg.Tree.Mem)
	k := memKill{Bound: boundSandbox}
	limit, _ := cgroupLimit(dir, v2)
	k.SandboxMB = limit >> 20
	if limit <= 0 || reached(dir, v2, limit, leafEvents) || cg.answer == "" {
		return k // no limit read (a fixture without one), or its own: the bot's
	}
	answer := filepath.Dir(dir)
	run := filepath.Dir(answer)
	half, _ := cgroupLimit(answer, v2)
	runLimit, _ := cgroupLimit(run, v2)
	k.AnswerMB, k.RunMB = half>>20, runLimit>>20
	if half <= 0 || reached(answer, v2, half, localOrBelow) {
		k.Bound = boundAnswer
		return k
	}
	if runLimit <= 0 || !reached(run, v2, runLimit, localEventsOnly) {
		k.Bound = boundUnexplained
		return k
	}
	k.Answers = countAnswers(run)
	held, ok := cgroupPeak(answer, v2)
	if k.Answers == 0 || !ok {
		k.Bound = boundRunShare // its answer's peak unknown: not shown within its share
		return k
	}
	share := runLimit / int64(k.Answers)
	k.ShareMB, k.HeldMB = share>>20, held>>20
	if held > share {
		k.Bound = boundRunShare
	} else {
		k.Bound = boundRun
	}
	return k
}

// Which of v2's event files show a cgroup's own limit reached.
type eventFiles int

const (
	leafEvents      eventFiles = iota // memory.events: a sandbox has no cgroup below it
	localOrBelow                      // memory.events.local, else memory.events (kernels before 5.2), whose counts below only make a kill more the bot's
	localEventsOnly                   // memory.events.local or none: counts below would make a kill the host's
)

// reached reports whether the cgroup at dir is shown to have reached its limit: a counter
// of the kernel's for it (v2 memory.events' oom and max, from the file which says; v1
// memory.failcnt and memsw's), or its peak within nearLimit of limit.
func reached(dir string, v2 bool, limit int64, which eventFiles) bool {
	if v2 {
		file := "memory.events"
		if which != leafEvents {
			if _, err := os.Stat(filepath.Join(dir, "memory.events.local")); err == nil {
				file = "memory.events.local"
			} else if which == localEventsOnly {
				file = ""
			}
		}
		// oom: the limit was reached and reclaim failed; max: the usage was about to pass
		// it. Neither counts a kill (oom_kill), which is the victim's cgroup's.
		if data, err := os.ReadFile(filepath.Join(dir, file)); file != "" && err == nil {
			for _, key := range []string{"oom", "max"} {
				if n, err := cgroupKey(data, key); err == nil && n > 0 {
					return true
				}
			}
		}
	} else {
		for _, f := range []string{"memory.failcnt", "memory.memsw.failcnt"} {
			if n, err := readCgroupInt(filepath.Join(dir, f)); err == nil && n > 0 {
				return true
			}
		}
	}
	peak, ok := cgroupPeak(dir, v2)
	return ok && peak >= limit-nearLimit(limit)
}

// nearLimit is how close to its limit a cgroup's peak must come to show that it reached
// it: a charge that fails is at most a huge page (2 MiB on x86-64) or a charge batch
// beyond the usage, so 4 MiB, or 1 % of larger limits.
func nearLimit(limit int64) int64 { return max(4<<20, limit/100) }

// cgroupLimit is the memory limit of the cgroup at dir in bytes (v2 memory.max, v1
// memory.limit_in_bytes); 0 and false when it has none or it cannot be read.
func cgroupLimit(dir string, v2 bool) (int64, bool) {
	data, err := os.ReadFile(filepath.Join(dir, pick(v2, "memory.max", "memory.limit_in_bytes")))
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil || n <= 0 || n >= 1<<62 { // "max", or v1's page-rounded infinity
		return 0, false
	}
	return n, true
}

// cgroupPeak is the most memory the cgroup at dir has held since it was made: v2
// memory.peak (kernels from 5.19), v1 the larger of memory.max_usage_in_bytes and
// memory.memsw.max_usage_in_bytes.
func cgroupPeak(dir string, v2 bool) (int64, bool) {
	if v2 {
		n, err := readCgroupInt(filepath.Join(dir, "memory.peak"))
		return n, err == nil
	}
	peak, ok := int64(0), false
	for _, f := range []string{"memory.max_usage_in_bytes", "memory.memsw.max_usage_in_bytes"} {
		if n, err := readCgroupInt(filepath.Join(dir, f)); err == nil {
			peak, ok = max(peak, n), true
		}
	}
	return peak, ok
}

// countAnswers is the number of answers' cgroups in the run's cgroup at dir.
func countAnswers(dir string) int {
	entries, _ := os.ReadDir(dir)
	n := 0
	for _, e := range entries {
		if e.IsDir() {
			n++
		}
	}
	return n
}
