package sandbox

import (
	"encoding/base64"
	"fmt"
	"syscall"
	"time"

	"github.com/kothd/kothd/engine"
)

// The launcher's wire format (launch/launcher.py documents it) and how a reply becomes a
// decision's outcome.

type launchRequest struct {
	ID      uint64   `json:"id"`
	Args    []string `json:"args"`
	Timeout float64  `json:"timeout"`
	CPU     int64    `json:"cpu"`
	NoFile  int      `json:"nofile,omitempty"`
	Out     int64    `json:"out"`
	Discard bool     `json:"discard"`
	Stdin   string   `json:"stdin,omitempty"`
}

type launchReply struct {
	ID    uint64 `json:"id"`
	End   string `json:"end"`
	Code  int    `json:"code"`
	Sig   int    `json:"sig"`
	Errno int    `json:"errno"`
	Out   string `json:"out"`
	Err   string `json:"err"`
	Why   string `json:"why"`
	// Run and Wait: what the kernel counted for the bot's main process as it timed out,
	// time on a CPU and time waiting for one (ns); absent otherwise.
	Run  *int64 `json:"run"`
	Wait *int64 `json:"wait"`
	// Forked: the fork server started the decision's process (launch/forkclient.py).
	Forked bool `json:"forked"`
}

// launched classifies a reply exactly as RunArgv classifies a process's end.
func (r *launchReply) launched(timeout time.Duration, limit int64) Launched {
	out, err := base64.StdEncoding.DecodeString(r.Out)
	res := Launched{Stdout: string(out), Stderr: r.Err, Exit: -1, Forked: r.Forked}
	if err != nil {
		res.Fault = &engine.Fault{Outcome: engine.HostFault, Detail: fmt.Sprintf("launcher: stdout: %v", err)}
		return res
	}
	note := ""
	if r.Err != "" {
		note = "; stderr: " + r.Err
	}
	switch r.End {
	case "exit":
		res.Exit = r.Code
		if r.Code == 0 {
			return res
		}
		res.Fault = &engine.Fault{Outcome: statusOutcome(false, r.Code, 0, r.Err),
			Detail: fmt.Sprintf("exit status %d; stdout: %q%s", r.Code, Truncate(res.Stdout, 200), note)}
	case "signal":
		sig := syscall.Signal(r.Sig)
		res.Fault = &engine.Fault{Outcome: statusOutcome(true, 0, sig, r.Err),
			Detail: fmt.Sprintf("signal: %v; stdout: %q%s", sig, Truncate(res.Stdout, 200), note)}
	case "timeout":
		res.Fault = &engine.Fault{Outcome: engine.Timeout, Detail: fmt.Sprintf("no answer within %s; process group killed%s", timeout, note)}
	case "output":
		res.Fault = &engine.Fault{Outcome: engine.OutputLimit, Detail: fmt.Sprintf("printed more than %d bytes; process killed", limit)}
	case "noexec":
		res.Errno = syscall.Errno(r.Errno)
		res.Fault = &engine.Fault{Outcome: engine.Crash, Detail: fmt.Sprintf("cannot start: %s%s", r.Why, note)}
	case "error":
		res.Fault = &engine.Fault{Outcome: engine.HostFault, Detail: "launcher: " + r.Why}
	default:
		res.Fault = &engine.Fault{Outcome: engine.HostFault, Detail: fmt.Sprintf("launcher: unknown end %q", r.End)}
	}
	return res
}

// statusOutcome is classifyExit for a wait status the launcher reported: the exit table
// (waitOutcome), then a crash whose stderr ends in a runtime's out-of-memory message is a
// MemoryLimit.
func statusOutcome(signaled bool, code int, sig syscall.Signal, stderrTail string) engine.Outcome {
	o := waitOutcome(signaled, code, sig)
	if o == engine.Crash && outOfMemory(stderrTail) {
		return engine.MemoryLimit
	}
	return o
}

// waitOutcome is the one table from a wait status to an outcome, for processes the runner
// waited for itself (exitOutcome) and for those a launcher reported (statusOutcome): the
// limits' signals mean their limits, an exit status of 128+n is read as signal n (bwrap
// and shells report a killed child so), anything else is a crash.
func waitOutcome(signaled bool, code int, sig syscall.Signal) engine.Outcome {
	if !signaled {
		if code <= 128 || code > 128+64 {
			return engine.Crash
		}
		sig = syscall.Signal(code - 128)
	}
	switch sig {
	case syscall.SIGXCPU: // RLIMIT_CPU's soft limit
		return engine.Timeout
	case syscall.SIGXFSZ: // RLIMIT_FSIZE: a file grew past the limit
		return engine.OutputLimit
	case syscall.SIGKILL, syscall.SIGTERM:
		return engine.Killed
	}
	return engine.Crash
}

// cpuSeconds is RLIMIT_CPU's soft limit for d, rounded up as prlimit is given it.
func cpuSeconds(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return max(int64((d+time.Second-1)/time.Second), 1)
}
