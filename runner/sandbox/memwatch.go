package sandbox

import (
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The run's memory watcher. When the run's bots together fill limits.total_memory_mb, the
// kernel kills the largest process under the run: two answers that each stay under their
// half could fill it together and have the leader, an honest bot far under every bound of
// its own, killed again and again (667 of 2,000 games voided, and the leader given up on
// after 20 restarts). So the run does not let the kernel choose: like a userspace OOM
// killer (systemd-oomd, earlyoom), a goroutine per run watches the run's memory and,
// before it is full (memWatchPercent of the bound, at least memWatchHeadroom below it:
// watchTrigger), stops the answer furthest above its
// share of it (the bound over the answers in the run): every process of every sandbox of
// that answer is killed, and each decision that then fails is that answer's memory fault
// (boundShare), naming its share. An answer at or under its share is never stopped; when
// none is above, the host's bound is too small for the field and the kernel's kill is
// judged as judgeKill says.
//
// Why polling: reading the run's usage is one pread of a file held open (a few
// microseconds), and the watcher sleeps in proportion to how far the run is from the
// trigger: how long the bots could take to fill that room at memWatchFillRate per CPU,
// between memWatchMin and memWatchMax. At a quarter of a 4 GiB run on 2 CPUs it looks
// every 250 ms; 40 MiB below the trigger every 10 ms, within 20 MiB of it every 5 ms. A threshold notification would
// cost less while idle, but differs per version (v1's cgroup.event_control eventfds,
// PSI triggers, which need privileges an unprivileged delegated daemon may lack) and
// still needs the per-answer reading done here.
//
// The brake (v2): a poll can look too late. On a host whose CPUs other work keeps busy
// the watcher waits for one, and a process fills tens of MiB in that time (a 45 MB
// bytearray is zeroed in 28 ms): the kernel's kill at the bound then takes the largest
// process, an honest bot. So on v2 the run's memory.high is set halfway from the trigger
// to the bound (brakeLevel): above it the kernel makes each allocating process of the run
// reclaim and then sleep, with the square of how far above (mm/memcontrol.c's
// calculate_high_delay: 64 s × the overage's fraction squared per 256 KiB charged on
// Linux 6.1 and later, per 128 KiB before; no sleep under 10 ms, at most 2 s at a time;
// 0.16 s per 256 KiB at 5 % above), so the run does not reach its bound while the watcher
// is late, and the sleeping processes leave the watcher the CPU. The sleep is per task:
// many processes allocating at once get through faster together.
//
// When the run is past the trigger with no answer over its share, the watcher stops
// nobody, and the brake must not hold back answers that are within their shares for
// good (a bound too small for the field); nor may it be lifted, or answers parked within
// their shares would have switched it off and could then jump together while the watcher
// is late. So it is raised instead, to halfway from the run's usage to the bound
// (raisedBrake): what the answers hold is not held back, and a jump beyond it is; it
// comes back to brakeLevel once the run is under the trigger. An honest process that
// allocates while the run is above its brake is held back too; a sleep the kernel has
// begun runs its course even once the watcher has stopped the answer over its share (up
// to 2 s), and its wall time counts against the bot (the wall-clock limits excuse a wait
// for a CPU, not this one: docs/trust.md, What remains). v1 has no such bound: its soft
// limit holds nothing back, and disabling its OOM killer fails the kernel's own
// allocations outright, a pipe's buffer say, in innocent processes too: there the poll
// acts alone.

const (
	// memWatchPercent is how full the run's memory may get before the watcher acts.
	memWatchPercent = 90
	// memWatchHeadroom is the least room the watcher leaves below the run's bound
	// (watchTrigger).
	memWatchHeadroom = 96 << 20
	// memWatchFillRate is how fast one CPU is taken to fill memory (bytes per second),
	// for the watcher's sleep: a page-faulting loop does about 2 GiB/s.
	memWatchFillRate = 2 << 30
	memWatchMin      = 5 * time.Millisecond
	memWatchMax      = 250 * time.Millisecond
	// memWatchSettle bounds how long the watcher waits for a stopped answer's memory to
	// go before it looks again: one overrun stops one answer.
	memWatchSettle = 2 * time.Second
)

// watchMemory runs the run's memory watcher until watchStop is closed.
func (s *Shares) watchMemory() {
	defer close(s.watchDone)
	limit := int64(s.memoryMB) << 20
	trigger := watchTrigger(limit)
	run := filepath.Join(s.Tree.Mem, s.Rel)
	usageFile := filepath.Join(run, pick(s.Tree.V2, "memory.current", "memory.usage_in_bytes"))
	var f liveFile
	defer f.close()
	rate := int64(memWatchFillRate) * int64(runtime.NumCPU())
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-s.watchStop:
			return
		case <-timer.C:
		}
		var buf [64]byte
		data, err := f.read(usageFile, buf[:])
		if err != nil {
			timer.Reset(memWatchMax)
			continue
		}
		used, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
		if err != nil {
			timer.Reset(memWatchMax)
			continue
		}
		if used >= trigger && used-fileBytes(run, s.Tree.V2) >= trigger {
			if s.stopOverShare(used, limit) {
				timer.Reset(0)
				continue
			}
			s.moveBrake(raisedBrake(s.brake, used, limit), limit) // nobody over their share
		} else {
			s.setBrake(s.brake)
		}
		timer.Reset(watchSleep(max(trigger-used, 0), rate))
	}
}

// watchTrigger is the run's usage at which the watcher acts: memWatchPercent of its bound,
// and at least memWatchHeadroom below it. The last 10 % of a small run is less than what
// one process can fill between two looks (a 45 MB bytearray is zeroed in 28 ms by Python
// 3.11 on the development host, and a watcher waiting for a CPU looks later than that),
// and the kernel's kill then takes the largest process, an honest bot. A run too small
// for the headroom keeps its half.
func watchTrigger(limit int64) int64 {
	return max(min(limit/100*memWatchPercent, limit-memWatchHeadroom), limit/2)
}

// brakeLevel is the run's usage from which the kernel holds its allocations back (v2's
// memory.high): halfway from the watcher's trigger to the bound.
func brakeLevel(limit int64) int64 {
	t := watchTrigger(limit)
	return t + (limit-t)/2
}

// raisedBrake is the brake of a run holding used bytes with no answer over its share:
// halfway from there to the bound, and never under its level.
func raisedBrake(level, used, limit int64) int64 {
	return max(level, used+(limit-used)/2)
}

// moveBrake sets the brake to target once it is more than a quarter of the room above the
// brake away from it, either way: the watcher looks every 5 ms near its trigger, and a
// run whose usage wanders there would have memory.high rewritten at every look.
func (s *Shares) moveBrake(target, limit int64) {
	if d := target - s.high; s.high == 0 || max(d, -d) > (limit-s.high)/4 {
		s.setBrake(target)
	}
}

// setBrake sets the run's memory.high to v bytes (0: "max", none), when the run has a
// brake and it is not at v already. A write that fails leaves it as it was, to be tried
// again at the next look: the watcher still acts.
func (s *Shares) setBrake(v int64) {
	if s.brake == 0 || s.high == v {
		return
	}
	text := "max"
	if v > 0 {
		text = strconv.FormatInt(v, 10)
	}
	if writeCgroup(filepath.Join(s.Tree.Mem, s.Rel), "memory.high", text) == nil {
		s.high = v
	}
}

// watchSleep is how long the watcher sleeps with room bytes left below its trigger, which
// the bots fill at rate bytes per second at most: the time they would take, between
// memWatchMin and memWatchMax. In float64: room times a second in nanoseconds passes int64
// from 8.6 GiB of room, and the wrapped product made a 16 GiB run's idle watcher look
// every 5 ms instead of every 250.
func watchSleep(room, rate int64) time.Duration {
	d := time.Duration(float64(room) / float64(rate) * float64(time.Second))
	return min(max(d, memWatchMin), memWatchMax)
}

// stopOverShare stops the answer furthest above its share of the run's memory, if one
// is above it, and waits for its memory to go; it reports whether it stopped one.
func (s *Shares) stopOverShare(used, limit int64) bool {
	s.mu.Lock()
	answers := slices.Collect(maps.Values(s.answers))
	s.mu.Unlock()
	if len(answers) == 0 {
		return false
	}
	share := limit / int64(len(answers))
	var worst *Share
	var worstHeld int64
	for _, a := range answers {
		held, ok := a.held()
		// An answer with no process running is passed over: a stop would free nothing of
		// what it holds (the files of its bot directory, a tmpfs; kernel memory its
		// processes left), and the others must be looked at.
		if ok && held > share && (worst == nil || held > worstHeld) && a.running() {
			worst, worstHeld = a, held
		}
	}
	if worst == nil {
		return false
	}
	k := memKill{Bound: boundShare, RunMB: limit >> 20, AnswerMB: limit >> 21, ShareMB: share >> 20,
		Answers: len(answers), HeldMB: worstHeld >> 20, UsedPct: int(used * 100 / limit)}
	worst.stop(k)
	s.stops.Add(1)
	// Until its memory is under its share, or its processes are gone: what a stop frees is
	// then freed, and what is left (its bot directory's files) will not go by waiting.
	deadline := time.Now().Add(memWatchSettle)
	for time.Now().Before(deadline) {
		if held, ok := worst.held(); !ok || held <= share || !worst.running() {
			break
		}
		select {
		case <-s.watchStop:
			return true
		case <-time.After(memWatchMin):
		}
	}
	return true
}

// held is the memory the answer's sandboxes hold, page cache aside; ok is false when it
// cannot be read.
func (a *Share) held() (int64, bool) {
	dir := filepath.Join(a.Tree.Mem, a.Rel)
	used, err := readCgroupInt(filepath.Join(dir, pick(a.Tree.V2, "memory.current", "memory.usage_in_bytes")))
	if err != nil {
		return 0, false
	}
	return max(used-fileBytes(dir, a.Tree.V2), 0), true
}

// fileBytes is the page cache the cgroup at dir holds (memory.stat's active_file and
// inactive_file, with v1's hierarchical total_ names): memory the kernel reclaims before
// it kills. 0 when it cannot be read.
func fileBytes(dir string, v2 bool) int64 {
	data, err := os.ReadFile(filepath.Join(dir, "memory.stat"))
	if err != nil {
		return 0
	}
	var n int64
	for _, key := range []string{"active_file", "inactive_file"} {
		if !v2 {
			key = "total_" + key
		}
		if v, err := cgroupKey(data, key); err == nil {
			n += v
		}
	}
	return n
}

// stop kills every process of the answer's sandboxes, each marked with k first so that
// the decision that fails is the answer's memory fault.
func (a *Share) stop(k memKill) {
	a.mu.Lock()
	live := slices.Collect(maps.Keys(a.live))
	a.mu.Unlock()
	for _, cg := range live {
		// Marked before the kill, so that the decision that fails reads it; unmarked
		// when the sandbox held no process yet (it is starting: nothing was stopped, and
		// its bot will run).
		mark := &k
		cg.stopped.Store(mark)
		if !cg.killAll() {
			cg.stopped.CompareAndSwap(mark, nil)
		}
	}
}

// running reports whether a process runs in one of the answer's sandboxes.
func (a *Share) running() bool {
	a.mu.Lock()
	live := slices.Collect(maps.Keys(a.live))
	a.mu.Unlock()
	return slices.ContainsFunc(live, (*sandboxCgroup).populated)
}

// track and untrack keep the answer's live sandboxes, for stop. A nil Share keeps none.
func (a *Share) track(cg *sandboxCgroup) {
	if a == nil {
		return
	}
	a.mu.Lock()
	if a.live == nil {
		a.live = map[*sandboxCgroup]struct{}{}
	}
	a.live[cg] = struct{}{}
	a.mu.Unlock()
}

func (a *Share) untrack(cg *sandboxCgroup) {
	if a == nil {
		return
	}
	a.mu.Lock()
	delete(a.live, cg)
	a.mu.Unlock()
}

// Stops is how many times the run's memory watcher stopped an answer.
func (s *Shares) Stops() int64 {
	if s == nil {
		return 0
	}
	return s.stops.Load()
}
