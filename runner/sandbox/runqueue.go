package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// A long-lived bot's reply deadline (Receive) is a wall-clock safety net behind the
// harness's own limits (a call's CPU time, its wall time pushed back by the time the host
// kept it from a CPU: starve.go). On a busy host the net itself can fall before a bot that
// only waited for a CPU replies, and the bot was killed and charged a timeout that was the
// host's doing. So a look before the deadline falls, the runner notes how long the bot's
// serving thread (the main thread of its main process, which reads requests and writes
// replies) has waited for a CPU, and when the deadline falls asks again: if over the look
// that thread waited for at least half of it while the bot's sandbox as a whole ran for
// less than half of it, the deadline moves on by another look, and so on, up to
// starvedExtra in all; if not, the bot is killed at its deadline.
//
// Both conditions are needed to keep a bot from buying time with processes or threads of
// its own: one thread's wait can only exceed half the look when the CPU it waits for is
// busy, and when its own sandbox is not what keeps it busy, the host is. (Summed over all
// of a bot's threads, waits that bursty threads impose on each other passed the first
// condition alone.) Without a cgroup to read the sandbox's CPU from (sandbox none,
// cgroups off) nothing moves. A deadline that is a budget's end (firm) never moves either:
// the budgets already allow for a loaded host. The look's first reading is a timer that
// costs nothing when the reply comes first.

// starvedExtra bounds how far a starved bot's deadline moves, as a multiple of the
// deadline.
const starvedExtra = 5

// runDelay is the time the main thread of process pid has spent runnable but waiting for
// a CPU (the second field of /proc/<pid>/task/<pid>/schedstat); ok is false when the
// kernel does not say (no such process, no schedstat).
func runDelay(pid int) (time.Duration, bool) {
	if pid <= 0 {
		return 0, false
	}
	id := strconv.Itoa(pid)
	b, err := os.ReadFile(filepath.Join("/proc", id, "task", id, "schedstat"))
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, false
	}
	ns, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0, false
	}
	return time.Duration(ns), true
}

// lookFor is how long each look lasts for a deadline d: a quarter of it, at least 250 ms
// (a shorter look says little about a scheduler's slices), at most d itself.
func lookFor(d time.Duration) time.Duration { return min(max(d/4, 250*time.Millisecond), d) }

// starvation follows a bot's wait for a CPU over the last look before its reply deadline
// and after it (Receive).
type starvation struct {
	pid      int
	proc     *Process      // the sandbox, for its CPU
	look     time.Duration // how long each look after the deadline lasts
	left     time.Duration // how far the deadline may still move
	at       time.Time     // when the current look began
	delay    time.Duration // the run delay then
	cpu      time.Duration // the sandbox's CPU then
	extended time.Duration // how far the deadline has moved
}

// startStarvation begins the first look, a look before the deadline d falls; nil when the
// kernel cannot say how long the bot waited or how much CPU its sandbox used.
func (p *LineProc) startStarvation(d time.Duration) *starvation {
	pid := p.botPid()
	delay, ok := runDelay(pid)
	if !ok {
		return nil
	}
	if p.Proc == nil {
		return nil
	}
	cpu, ok := p.Proc.CPU()
	if !ok {
		return nil
	}
	return &starvation{pid: pid, proc: p.Proc, look: lookFor(d), left: starvedExtra * d, at: time.Now(), delay: delay, cpu: cpu}
}

// next ends a look: the next look's length when, over this one, the bot waited for a CPU
// for at least half of it and its sandbox ran for less than half of it, and the deadline
// may still move; else 0. A nil s (no look begun) gives 0.
func (s *starvation) next() time.Duration {
	if s == nil || s.left <= 0 {
		return 0
	}
	now := time.Now()
	half := now.Sub(s.at) / 2
	delay, ok := runDelay(s.pid)
	if !ok || delay-s.delay < half {
		return 0
	}
	cpu, ok := s.proc.CPU()
	if !ok || cpu-s.cpu >= half {
		return 0
	}
	s.at, s.delay, s.cpu = now, delay, cpu
	s.extended += s.look
	s.left -= s.look
	return s.look
}
