package runner

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// ProcSpec describes one bot process. The process runs with its working directory set to
// Dir, the bot's private writable directory; Argv names files relative to it (the runner
// copies harness files into Dir, so nothing outside it needs to be visible to the bot).
type ProcSpec struct {
	Dir    string
	Argv   []string
	Env    []string // extra KEY=VALUE pairs on top of the sandbox's scrubbed environment
	Limits Limits
}

// Limits bound one bot process. Zero means "no limit of this kind" except where a sandbox
// documents a default.
type Limits struct {
	CPUTime     time.Duration // total CPU time of the process (RLIMIT_CPU)
	MemoryMB    int           // address space (RLIMIT_AS)
	Procs       int           // processes/threads of the sandbox user (RLIMIT_NPROC)
	OpenFiles   int           // RLIMIT_NOFILE
	OutputBytes int64         // bytes the runner reads from stdout before cutting the bot off
	FileSizeMB  int           // largest file the bot may write (RLIMIT_FSIZE)
}

// Sandbox turns a ProcSpec into a command ready to start. Implementations must put the
// process in its own process group (so KillGroup reaches every descendant) and must not
// pass the daemon's environment through.
type Sandbox interface {
	Name() string
	Command(ctx context.Context, spec ProcSpec) (*exec.Cmd, error)
}

// Unsandboxed runs bots as plain child processes. It exists for hosts that set
// `sandbox: none` explicitly (and for engine tests with trusted bots); it still scrubs the
// environment and uses a process group, but it isolates nothing else.
type Unsandboxed struct{}

func (Unsandboxed) Name() string { return "none" }

func (Unsandboxed) Command(ctx context.Context, spec ProcSpec) (*exec.Cmd, error) {
	if len(spec.Argv) == 0 {
		return nil, fmt.Errorf("sandbox none: empty command")
	}
	cmd := exec.Command(spec.Argv[0], spec.Argv[1:]...)
	cmd.Dir = spec.Dir
	cmd.Env = append(BaseEnv(spec.Dir), spec.Env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	return cmd, nil
}

// BaseEnv is the scrubbed environment every bot gets: enough for interpreters to run,
// nothing of the daemon's (no tokens, no API keys).
func BaseEnv(home string) []string {
	path := "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	return []string{"PATH=" + path, "HOME=" + home, "LANG=C.UTF-8", "PYTHONDONTWRITEBYTECODE=1", "PYTHONHASHSEED=0"}
}

// KillGroup kills the process group led by cmd's process, so that children a bot spawned
// die with it.
func KillGroup(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Process.Kill()
}

// exists reports whether a path exists on the host.
func exists(p string) bool { _, err := os.Stat(p); return err == nil }
