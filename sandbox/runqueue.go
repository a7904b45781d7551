package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// A long-lived bot's reply deadline (ReceiveOr) is a wall-clock safety net behind the
// harness's own limits (a call's CPU time, its wall time pushed back by the time the host
// kept it from a CPU: starve.go). On a busy host the net itself can fall before a bot that
// only waited for a CPU replies, and the bot was killed and charged a timeout that was the
// host's doing. So when the deadline falls, the runner asks the kernel whether the bot's
// process is waiting for a CPU: if it waited for most of a short look, the deadline moves
// on by that look, up to starvedExtra in all. Nothing is read before a deadline falls: the
// reply path pays nothing.

// starvedExtra bounds how far a starved bot's deadline moves, as a multiple of the
// deadline: a bot that keeps itself waiting (threads or children of its own competing
// with it) is killed at last all the same, and its sandbox's CPU budget still applies.
const starvedExtra = 5

// runDelay is the time the threads of process pid have spent runnable but waiting for a
// CPU (the second field of each /proc/<pid>/task/<tid>/schedstat); ok is false when the
// kernel does not say (no such process, no schedstat).
func runDelay(pid int) (time.Duration, bool) {
	if pid <= 0 {
		return 0, false
	}
	base := filepath.Join("/proc", strconv.Itoa(pid), "task")
	tasks, err := os.ReadDir(base)
	if err != nil {
		return 0, false
	}
	var sum int64
	read := false
	for _, t := range tasks {
		b, err := os.ReadFile(filepath.Join(base, t.Name(), "schedstat"))
		if err != nil {
			continue
		}
		f := strings.Fields(string(b))
		if len(f) < 2 {
			continue
		}
		if ns, err := strconv.ParseInt(f[1], 10, 64); err == nil {
			sum += ns
			read = true
		}
	}
	return time.Duration(sum), read
}

// lookFor is how long each look lasts for a deadline d: a quarter of it, at least 250 ms
// (a shorter look says little about a scheduler's slices), at most d itself.
func lookFor(d time.Duration) time.Duration { return min(max(d/4, 250*time.Millisecond), d) }

// starvation follows a bot's wait for a CPU over the last look before its reply deadline
// and after it (ReceiveOr).
type starvation struct {
	pid      int
	proc     *Process      // the sandbox, for its CPU; nil without one
	hasCPU   bool          // whether the sandbox's CPU can be read
	look     time.Duration // how long each look after the deadline lasts
	left     time.Duration // how far the deadline may still move
	at       time.Time     // when the current look began
	delay    time.Duration // the run delay then
	cpu      time.Duration // the sandbox's CPU then
	extended time.Duration // how far the deadline has moved
}

// startStarvation begins the first look, a look before the deadline d falls; nil when the
// kernel cannot say.
func (p *LineProc) startStarvation(d time.Duration) *starvation {
	pid := p.botPid()
	delay, ok := runDelay(pid)
	if !ok {
		return nil
	}
	s := &starvation{pid: pid, proc: p.Proc, look: lookFor(d), left: starvedExtra * d, at: time.Now(), delay: delay}
	if p.Proc != nil {
		s.cpu, s.hasCPU = p.Proc.CPU()
	}
	return s
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
	if s.hasCPU {
		cpu, ok := s.proc.CPU()
		if !ok || cpu-s.cpu >= half {
			return 0
		}
		s.cpu = cpu
	}
	s.at, s.delay = now, delay
	s.extended += s.look
	s.left -= s.look
	return s.look
}
