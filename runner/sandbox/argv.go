package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/kothd/kothd/engine"
)

// The argv protocol (Bank Heist): one fresh process per decision. The bot's command runs
// with the game's arguments appended, in the bot's directory, with an empty stdin; the
// answer is its whole stdout with surrounding whitespace removed.

const (
	defaultArgvOutput  = 1 << 20 // stdout bytes read when the limits name none
	defaultArgvTimeout = 10 * time.Second
	argvStderrTail     = 2048
)

// RunArgv runs spec.Argv followed by args once and returns what it printed.
//
// The outcome is a fault when the process cannot start (Crash: a missing or non-executable
// program is the bot's; HostFault: the sandbox or the machine failed), runs longer than
// timeout (Timeout; the whole process group is killed), prints more than
// spec.Limits.OutputBytes (OutputLimit; killed at once), or exits other than with status 0
// (classifyExit, as for a long-lived process: the wait status, a sandbox that never ran the
// bot, a runtime's out-of-memory message). A cancelled ctx is a HostFault: the run
// stops, the bot did nothing wrong. No process of the bot outlives the call: once the
// bot's main process has exited, its process group is killed before the process is reaped,
// so background children go too and the group id cannot have been reused.
func RunArgv(ctx context.Context, sb Sandbox, spec ProcSpec, args []string, timeout time.Duration) (string, *engine.Fault) {
	if ctx.Err() != nil {
		return "", &engine.Fault{Outcome: engine.HostFault, Detail: "run cancelled"}
	}
	if timeout <= 0 {
		timeout = defaultArgvTimeout
	}
	full := spec
	full.Argv = append(append(make([]string, 0, len(spec.Argv)+len(args)), spec.Argv...), args...)
	proc, err := sb.Command(ctx, full)
	if err != nil {
		return "", &engine.Fault{Outcome: engine.HostFault, Detail: fmt.Sprintf("sandbox %s: %v", sb.Name(), err)}
	}
	// What the sandbox holds for the process (its cgroup, bwrap's status and option files)
	// is spent once it has been classified; one process per decision makes thousands.
	defer proc.Release()
	cmd := proc.Cmd
	limit := spec.Limits.OutputBytes
	if limit <= 0 {
		limit = defaultArgvOutput
	}
	out := &cappedBuffer{max: int(limit), over: make(chan struct{})}
	stderr := NewTailBuffer(argvStderrTail)
	cmd.Stdout, cmd.Stderr = out, stderr
	// A descendant that left the group but kept stdout open must not hold the call up.
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		if cannotExec(err) {
			return "", &engine.Fault{Outcome: engine.Crash, Detail: "cannot start: " + err.Error()}
		}
		return "", &engine.Fault{Outcome: engine.HostFault, Detail: fmt.Sprintf("start in sandbox %s: %v", sb.Name(), err)}
	}

	// The group may be killed only while its leader is unreaped: until then no other
	// process can have been given its id.
	var mu sync.Mutex
	reaped := false
	killGroup := func() {
		mu.Lock()
		defer mu.Unlock()
		if !reaped {
			KillGroup(cmd)
		}
	}
	exited := make(chan error, 1)
	go func() {
		if waitExited(cmd.Process.Pid) == nil { // the main process is a zombie now
			mu.Lock()
			KillGroup(cmd) // background children it left
			reaped = true
			mu.Unlock()
			exited <- cmd.Wait()
			return
		}
		// waitid refused (it should not): reap the ordinary way; background children
		// then survive until the sandbox's own clean-up.
		err := cmd.Wait()
		mu.Lock()
		reaped = true
		mu.Unlock()
		exited <- err
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()

	var forced engine.Outcome
	var werr error
	select {
	case werr = <-exited:
	case <-out.over:
		forced = engine.OutputLimit
	case <-timer.C:
		forced = engine.Timeout
	case <-ctx.Done():
		forced = engine.HostFault
	}
	if forced != "" {
		killGroup()
		werr = <-exited
	}
	switch {
	case forced == engine.OutputLimit || out.cut():
		return "", &engine.Fault{Outcome: engine.OutputLimit, Detail: fmt.Sprintf("printed more than %d bytes; process killed", limit)}
	case forced == engine.Timeout:
		return "", &engine.Fault{Outcome: engine.Timeout, Detail: fmt.Sprintf("no answer within %s; process group killed%s", timeout, stderrNote(stderr))}
	case forced == engine.HostFault:
		return "", &engine.Fault{Outcome: engine.HostFault, Detail: "run cancelled"}
	case werr != nil && !errors.Is(werr, exec.ErrWaitDelay):
		kill := proc.oomKilled()
		o, why := classifyKilled(proc, werr, stderr.String(), kill), ""
		if kill.killed() && (o == engine.MemoryLimit || o == engine.HostFault) {
			why = "; " + kill.detail()
		}
		return "", &engine.Fault{Outcome: o, Detail: fmt.Sprintf("%v%s; stdout: %q%s", werr, why, Truncate(out.String(), 200), stderrNote(stderr))}
	}
	return strings.Trim(out.String(), " \t\n\r\v\f"), nil
}

func stderrNote(t *tailBuffer) string {
	s := t.String()
	if s == "" {
		return ""
	}
	return "; stderr: " + s
}

// cannotExec reports whether a start failure is the bot's program's fault (missing, not
// executable, not a recognised format) rather than the machine's.
func cannotExec(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) ||
		errors.Is(err, syscall.ENOEXEC) || errors.Is(err, exec.ErrNotFound) || errors.Is(err, syscall.ENOTDIR)
}

// waitExited blocks until process pid has exited without reaping it (waitid with
// WNOWAIT), so its process group can still be killed safely.
func waitExited(pid int) error {
	const pPID = 1     // P_PID
	var info [128]byte // siginfo_t
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&info[0])),
			syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return e
		}
		return nil
	}
}

// cappedBuffer keeps the first max bytes written to it and signals when more arrive.
type cappedBuffer struct {
	mu      sync.Mutex
	max     int
	buf     []byte
	over    chan struct{}
	overrun bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - len(c.buf); len(p) > room {
		c.buf = append(c.buf, p[:max(room, 0)]...)
		if !c.overrun {
			c.overrun = true
			close(c.over)
		}
		return len(p), nil // discard the rest; the process is being killed
	}
	c.buf = append(c.buf, p...)
	return len(p), nil
}

func (c *cappedBuffer) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return string(c.buf)
}

func (c *cappedBuffer) cut() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.overrun
}
