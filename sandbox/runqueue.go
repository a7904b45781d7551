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

// starvation follows a bot's wait for a CPU after its reply deadline fell (ReceiveOr).
type starvation struct {
	pid      int
	proc     *Process      // the sandbox, for its CPU; nil without one
	cpu      time.Duration // the sandbox's CPU at the start of the current look
	hasCPU   bool          // whether the sandbox's CPU can be read
	look     time.Duration // how long each look lasts
	left     time.Duration // how far the deadline may still move
	delay    time.Duration // the run delay at the start of the current look
	extended time.Duration // how far it has moved
}

// startStarvation begins looking when the deadline d fell; nil when the kernel cannot say.
func (p *LineProc) startStarvation(d time.Duration) *starvation {
	pid := p.botPid()
	delay, ok := runDelay(pid)
	if !ok {
		return nil
	}
	s := &starvation{pid: pid, proc: p.Proc, look: max(d/4, 250*time.Millisecond), left: starvedExtra * d, delay: delay}
	if p.Proc != nil {
		s.cpu, s.hasCPU = p.Proc.CPU()
	}
	return s
}

// next ends a look: the next look's length when the bot waited for a CPU for at least
// half of this one, its sandbox ran for less than half of it, and the deadline may still
// move; else 0.
func (s *starvation) next() time.Duration {
	if s == nil || s.left <= 0 {
		return 0
	}
	delay, ok := runDelay(s.pid)
	if !ok || delay-s.delay < s.look/2 {
		return 0
	}
	if s.hasCPU {
		cpu, ok := s.proc.CPU()
		if !ok || cpu-s.cpu >= s.look/2 {
			return 0
		}
		s.cpu = cpu
	}
	s.delay = delay
	s.extended += s.look
	s.left -= s.look
	return s.look
}
