package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// strayWait bounds how long one killStrays waits for the strays it killed to be gone, over
// all its sweeps: a process slow to die (a large memory to give back, a D state) is left to
// the next reply's sweep rather than holding up the run.
const strayWait = 200 * time.Millisecond

// strayPause is how long a sweep that could not watch a killed stray's exit (its pidfd
// would not open) lets an unfinished fork of it end before it looks again.
const strayPause = 2 * time.Millisecond

// killStrays kills the processes of the sandbox that are not its own three – bwrap
// outside the sandbox's PID namespace, bwrap's init (pid 1 inside) and the command it
// started (pid 2 inside: a harness) – once they are known to have outlived the call that
// started them. A long-lived bot's runner calls it after each reply, before it writes the
// next request: children that spin on after a reply are charged to no call and slow
// everyone's. It reads pids.current (one pread); only when the sandbox holds more than
// three tasks does it read cgroup.procs and look at them. The three own processes are
// looked up once by their pid inside the namespace (/proc/<pid>/status NSpid: an orphan
// the init adopted has another). It returns how many processes it killed.
//
// One reading of cgroup.procs is not enough: a stray can be inside fork(2) when it is
// read, and its child joins the cgroup after the reading, alive; a chain of processes that
// each fork the next and exit moves on faster than any reading. So once a reading has
// found a stray, the sandbox's pids.max is 0 until the sweep is done (no process or
// thread can start in it), and the sweep repeats: it waits for the processes it killed to
// be gone (a killed process exits only after a fork it was in has returned, its child in
// the cgroup by then) and reads again, until a reading finds no new stray, and once more
// if the wait ran out. Then the limit is put back. Only a sandbox with a stray is ever held
// so: a bot whose own process starts threads after its reply (a JVM's, a Go runtime's) but
// leaves no other process never meets the zero limit. What the harness's own process
// starts once the limit is back (a bot's thread forking again) is the next reply's stray.
func (cg *sandboxCgroup) killStrays() int {
	cg.mu.Lock()
	defer cg.mu.Unlock()
	if cg.released {
		return 0
	}
	// pids.current counts tasks (threads too): the own three alone make 3, and it reads
	// with one pread. cgroup.procs does not: its content is made on open.
	var buf [64]byte
	data, err := cg.procsFile.read(filepath.Join(cg.Dir(cg.Tree.Pids), "pids.current"), buf[:])
	if err != nil {
		return 0
	}
	if tasks, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && tasks <= 3 && len(cg.keep) == 3 {
		return 0
	}
	deadline := time.Now().Add(strayWait)
	killed := map[int]bool{}
	held := false
	defer func() {
		if held && !cg.released {
			cg.unholdPids()
		}
	}()
	for {
		found, pidfds, unwatched := cg.sweepStrays(killed)
		if !found {
			return len(killed)
		}
		if !held {
			held = cg.holdPids()
		}
		// The wait is made without the lock: the budget watcher reads this sandbox's CPU
		// meanwhile. A release in between ends the sweep (its processes are killed).
		cg.mu.Unlock()
		waitGone(pidfds, deadline)
		if unwatched {
			time.Sleep(strayPause)
		}
		cg.mu.Lock()
		if cg.released {
			return len(killed)
		}
		if time.Now().After(deadline) {
			cg.sweepStrays(killed) // a last look, not waited for
			return len(killed)
		}
	}
}

// holdPids sets the sandbox's pids.max to 0 and says whether it did (cg.mu held).
func (cg *sandboxCgroup) holdPids() bool {
	return cg.pidsMax != "" && cg.pidsMaxFile.write(filepath.Join(cg.Dir(cg.Tree.Pids), "pids.max"), []byte("0")) == nil
}

// unholdPids puts pids.max back to the sandbox's limit (cg.mu held). Through the file
// holdPids opened, a write of a value the file took before does not fail; it is tried
// thrice all the same, as a sandbox left at 0 could start nothing again.
func (cg *sandboxCgroup) unholdPids() {
	for range 3 {
		if cg.pidsMaxFile.write("", []byte(cg.pidsMax)) == nil {
			return
		}
	}
}

// sweepStrays reads cgroup.procs once and kills every process in it that is neither one
// of the sandbox's own three nor killed before (killed, which it adds to). It says whether
// it found any, returns the pidfds of those it could watch (for waitGone), and whether
// some could not be watched (cg.mu held).
func (cg *sandboxCgroup) sweepStrays(killed map[int]bool) (found bool, pidfds []int, unwatched bool) {
	data, err := os.ReadFile(filepath.Join(cg.Dir(cg.Tree.Pids), "cgroup.procs"))
	if err != nil {
		return false, nil, false
	}
	for _, f := range strings.Fields(string(data)) {
		pid, err := strconv.Atoi(f)
		if err != nil || pid == os.Getpid() || slices.Contains(cg.keep, pid) || killed[pid] {
			continue
		}
		if len(cg.keep) < 3 {
			if ns := nsPid(pid); ns != "" {
				cg.keep = append(cg.keep, pid)
				if ns == "2" {
					cg.botPid = pid
				}
				continue
			}
		}
		killed[pid], found = true, true
		if fd := killPidfd(pid); fd >= 0 {
			pidfds = append(pidfds, fd)
		} else {
			unwatched = true
		}
	}
	return found, pidfds, unwatched
}

// killPidfd sends SIGKILL to pid through a pidfd (a pid reused since cgroup.procs was read
// is not hit once the descriptor is open) and returns the descriptor, which polls readable
// once the process has exited. Without a pidfd (the process is gone, the kernel predates
// them, the host is out of descriptors) it returns -1, having sent a plain kill(2) unless
// the process is gone.
func killPidfd(pid int) int {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		if err != unix.ESRCH {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		return -1
	}
	_ = unix.PidfdSendSignal(fd, syscall.SIGKILL, nil, 0)
	return fd
}

// killPid kills one process through a pidfd (killPidfd), without waiting for it.
func killPid(pid int) {
	if fd := killPidfd(pid); fd >= 0 {
		_ = syscall.Close(fd)
	}
}

// waitGone waits until every process of pidfds has exited, or deadline, and closes them.
func waitGone(pidfds []int, deadline time.Time) {
	for _, fd := range pidfds {
		for {
			left := time.Until(deadline)
			if left <= 0 {
				break
			}
			// A pidfd polls readable (POLLIN) once its process has exited.
			pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			n, err := unix.Poll(pfd, int(left.Milliseconds())+1)
			if n > 0 || (err != nil && err != unix.EINTR) {
				break
			}
		}
		_ = syscall.Close(fd)
	}
}
