// Package sandbox starts bots' processes where they can harm nothing: bwrap with a
// seccomp filter, cgroups (v1 or v2, shared per run and per answer), a uid of their own,
// a private tmpfs for each bot, resource limits and a disk allowance. It also holds the
// launcher (one sandbox that starts a process per decision) and the one-shot run of a
// command; the protocols (package protocol and below) are built on these.
package sandbox

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// ProcSpec describes one bot process. The process runs with its working directory set to
// Dir, the bot's private writable directory; Argv names files relative to it (the runner
// copies harness files into Dir, so nothing outside it needs to be visible to the bot).
type ProcSpec struct {
	Dir  string
	Argv []string
	Env  []string // extra KEY=VALUE pairs on top of the sandbox's scrubbed environment
	// Mount is where Dir appears inside a sandbox that relocates it (bwrap; default
	// /bot). Mafia bots learn their name from their directory's name, so they get
	// /players/<name>, the original controller's layout.
	Mount string
	// ReadOnlyDir shows Dir read-only (Python-class bots, whose harness writes nothing):
	// such a bot can neither fill the host's disk nor leave state for its next run.
	ReadOnlyDir bool
	Limits      Limits
	// Prefixes are installation prefixes outside the sandbox's usual binds that the
	// process needs although its command does not name them: the interpreter a Mafia
	// bot's `run` script execs (/root/.pyenv/versions/2.7.18). Bwrap binds those under
	// /root/.pyenv/versions and /usr/local only (see namedPrefixes).
	Prefixes []string
	// Launcher marks kothd's launcher (launcher.go): it enters a user namespace of its
	// own before it runs any bot code, so its sandbox's seccomp filter allows that, and
	// it applies the bots' full filter itself.
	Launcher bool
	// Share is the cgroup of the bot's answer in its run (Shares.Answer): the sandbox's
	// cgroup is made in it, so that the answer's sandboxes share one answer's CPU weight
	// and the run's memory bound. nil: directly under the daemon's cgroup.
	Share *Share
}

// Limits bound one bot process. Zero means "no limit of this kind" except where a sandbox
// documents a default (Bwrap bounds memory, processes, open files and file size always).
type Limits struct {
	CPUTime     time.Duration // CPU time of each process (RLIMIT_CPU) and of the whole sandbox (cgroup)
	MemoryMB    int           // each process's private writable memory (RLIMIT_DATA) and the whole sandbox's memory (cgroup)
	Procs       int           // processes/threads of the sandbox (RLIMIT_NPROC and the cgroup's pids limit)
	OpenFiles   int           // RLIMIT_NOFILE
	OutputBytes int64         // bytes the runner reads from stdout before cutting the bot off
	FileSizeMB  int           // largest file the bot may write (RLIMIT_FSIZE)
	// DirMB bounds what a one-shot bot keeps in its directory (RLIMIT_FSIZE bounds one
	// file, not how many). A directory made by BotDir on a bwrap host is a filesystem of
	// that size, where writes past it fail with ENOSPC; a decision that ends with it full
	// is an output-limit fault. Elsewhere it is checked after each decision: over it, the
	// decision is an output-limit fault until the bot deletes files.
	DirMB int
}

// Sandbox turns a ProcSpec into a process ready to start, which owns what the sandbox
// holds for it (Process.Release). Implementations must put the process in its own process
// group (so KillGroup reaches every descendant) and must not pass the daemon's environment
// through.
type Sandbox interface {
	Name() string
	Command(ctx context.Context, spec ProcSpec) (*Process, error)
}

// NewSandbox returns the sandbox a config names: "bwrap" (or "") or "none".
//
// bwrap is tried once, by running `true` inside a sandbox built exactly as a bot's would
// be; if that fails the error says why and what the host can do, and kothd must refuse to
// play untrusted bots. "none" runs bots unisolated, with the daemon's privileges: allowed
// only because the host asked for it, and logged at error level every time.
func NewSandbox(kind string, log *slog.Logger) (Sandbox, error) {
	return NewSandboxCgroups(kind, CgroupsRequired, log)
}

// NewSandboxCgroups is NewSandbox with the config's `cgroups` setting: "required" (or "")
// limits every bwrap sandbox as a whole through a cgroup of its own and refuses to play
// when the host cannot (CheckCgroups says why), as without bwrap; "off" runs sandboxes
// with per-process limits only, which a bot that forks can multiply: allowed only because
// the host asked for it, and logged at error level.
func NewSandboxCgroups(kind, cgroups string, log *slog.Logger) (Sandbox, error) {
	if log == nil {
		log = slog.Default()
	}
	switch kind {
	case "none":
		log.Error("SANDBOX DISABLED (sandbox: none): bots run unisolated with the daemon's privileges; " +
			"they can read its files and environment and reach the network")
		return Unsandboxed{}, nil
	case "", "bwrap":
		b, err := NewBwrap()
		if err != nil {
			return nil, fmt.Errorf("%w; refusing to run untrusted bots (set `sandbox: none` to run them unisolated, not advised)", err)
		}
		if b.seccomp == nil {
			log.Error("NO SECCOMP FILTER: " + errSeccompArch.Error() + "; sandboxes can pass each other data through " +
				"file locks, the page cache and keyrings, and bots may create user namespaces")
		}
		if b.seccomp != nil && b.sysinfoErr != nil {
			log.Error("SYSINFO NOT ANSWERED: sandboxes see the machine's sysinfo(2) (its process count, free memory "+
				"and load), through which two of them can pass each other data", "reason", b.sysinfoErr)
		}
		if b.root && b.uids == nil {
			log.Error("BOT UIDS SHARED: the daemon's user namespace lacks the uids bot_uid_first/bot_uid_count name; every "+
				"bot runs as one uid, so one bot's processes count against the others' process limit", "uid", b.UID)
		}
		if b.uidClaimErr != nil {
			log.Error("BOT UIDS NOT CLAIMED HOST-WIDE: another kothd process on this host (a worker, a bench, a second "+
				"daemon) may run its bots as the uids this one does, sharing their process limit", "reason", b.uidClaimErr)
		}
		switch cgroups {
		case "", CgroupsRequired:
			tree, err := hostCgroups()
			if err != nil {
				return nil, fmt.Errorf("%w; refusing to run untrusted bots (set `cgroups: off` to run sandboxes without "+
					"whole-sandbox limits, not advised)", err)
			}
			b.cgroups = tree
		case CgroupsOff:
			log.Error("CGROUPS DISABLED (cgroups: off): sandboxes have per-process limits only; a bot's forked " +
				"children can hold memory_mb each, spin uncharged and starve the other bots")
		default:
			return nil, fmt.Errorf("unknown cgroups setting %q (required or off)", cgroups)
		}
		if err := b.probe(); err != nil {
			return nil, fmt.Errorf("bubblewrap cannot build a sandbox on this host: %w; user namespaces may be disabled "+
				"(kernel.unprivileged_userns_clone, user.max_user_namespaces, an AppArmor user-namespace restriction); "+
				"refusing to run untrusted bots (set `sandbox: none` to run them unisolated, not advised)", err)
		}
		if err := b.enableBotfs(LauncherPython); err != nil {
			log.Error("DISK ALLOWANCE NOT HELD DURING DECISIONS: bot directories cannot be put on filesystems of "+
				"their own, so a bot can fill the host's disk while it runs; disk_mb is only checked after each decision",
				"reason", err)
		}
		log.Info("sandbox ready", "sandbox", "bwrap", "path", b.Path, "root_daemon", b.root, "bot_uids", b.uidsName(),
			"seccomp", b.seccomp != nil, "cgroups", b.cgroupsName(), "bot_directories", b.botfsName())
		return b, nil
	}
	return nil, fmt.Errorf("unknown sandbox %q (bwrap or none)", kind)
}

// probe runs `true` in a sandbox over an empty directory.
func (b *Bwrap) probe() error {
	dir, err := os.MkdirTemp("", "kothd-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	proc, err := b.Command(context.Background(), ProcSpec{Dir: dir, Argv: []string{"true"}})
	if err != nil {
		return err
	}
	defer proc.Release()
	cmd := proc.Cmd
	out := NewTailBuffer(2048)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		KillGroup(cmd)
		<-done
		return fmt.Errorf("`true` did not finish within 30s in the sandbox")
	}
	if err != nil {
		return fmt.Errorf("`true` in the sandbox: %v: %s", err, out.String())
	}
	return nil
}

// botfsName says how bot directories are bounded, for the log.
func (b *Bwrap) botfsName() string {
	if b.botfs == nil {
		return "checked after each decision"
	}
	return "tmpfs of disk_mb each"
}

// cgroupsName says how sandboxes are limited as a whole, for the log.
func (b *Bwrap) cgroupsName() string {
	switch {
	case b.cgroups == nil:
		return "off"
	case b.cgroups.V2:
		return "v2"
	}
	return "v1"
}

// Unsandboxed runs bots as plain child processes. It exists for hosts that set
// `sandbox: none` explicitly (and for engine tests with trusted bots); it still scrubs the
// environment and uses a process group, but it isolates nothing else.
type Unsandboxed struct{}

func (Unsandboxed) Name() string { return "none" }

func (Unsandboxed) Command(ctx context.Context, spec ProcSpec) (*Process, error) {
	if len(spec.Argv) == 0 {
		return nil, fmt.Errorf("sandbox none: empty command")
	}
	cmd := exec.Command(spec.Argv[0], spec.Argv[1:]...)
	cmd.Dir = spec.Dir
	cmd.Env = append(BaseEnv(spec.Dir), spec.Env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	return &Process{Cmd: cmd}, nil
}

// BaseEnv is the scrubbed environment every bot gets: enough for interpreters to run,
// nothing of the daemon's (no tokens, no API keys).
func BaseEnv(home string) []string {
	path := "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	return []string{"PATH=" + path, "HOME=" + home, "LANG=C.UTF-8", "PYTHONDONTWRITEBYTECODE=1", "PYTHONHASHSEED=0",
		// One BLAS/OpenMP thread: numpy would otherwise start a thread per core, which a
		// process limit sized for one bot may not allow.
		"OPENBLAS_NUM_THREADS=1", "OMP_NUM_THREADS=1"}
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
