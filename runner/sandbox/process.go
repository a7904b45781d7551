package sandbox

import (
	"io"
	"os/exec"
	"sync"
	"time"
)

// Process is one command made by a Sandbox, with everything the sandbox holds for it: its
// cgroup (when the sandbox has cgroups), the files handed to bwrap (status, options,
// seccomp filter) and, for a root daemon, its hold on the bot directory's uid. It owns
// them, so nothing global has to remember which command they belong to: whoever made the
// Process releases it (Release, idempotent) once its process has been waited for and its
// exit classified. A Process that is never started must be released all the same.
type Process struct {
	// Cmd is the command to run. Set its stdio before Start; do not call Cmd.Start or
	// Cmd.Wait and Process.Start or Process.Wait both.
	Cmd *exec.Cmd

	cg      *sandboxCgroup // nil without cgroups (sandbox none, cgroups off)
	uid     int            // the pooled uid the bot runs as; valid when pooled
	pooled  bool
	freeUID func() // ends the uid hold; nil when not pooled
	// sysinfo is the supervisor answering the sandbox's sysinfo calls (sysinfo.go); nil
	// when the host cannot.
	sysinfo *sysinfoSupervisor

	once sync.Once

	// The bwrap status report (sandboxFailed), read at most once: at the first look or
	// when Release closes the file, so that an exit is classified alike before and after.
	statusMu   sync.Mutex
	status     []byte
	statusRead bool
}

// statusReport is what bwrap wrote to its status file; ok is false for a command without
// one (sandbox none).
func (p *Process) statusReport() (report []byte, ok bool) {
	f := statusFile(p.Cmd)
	if f == nil {
		return nil, false
	}
	p.statusMu.Lock()
	defer p.statusMu.Unlock()
	if !p.statusRead {
		p.status, _ = io.ReadAll(io.NewSectionReader(f, 0, 4096))
		p.statusRead = true
	}
	return p.status, true
}

// Start starts the command.
func (p *Process) Start() error { return p.Cmd.Start() }

// Wait waits for the command to exit (see exec.Cmd.Wait).
func (p *Process) Wait() error { return p.Cmd.Wait() }

// Kill kills every process of the sandbox: its cgroup's, wherever they moved their
// process group, or its process group without a cgroup.
func (p *Process) Kill() {
	if cg := p.cg; cg != nil {
		cg.mu.Lock()
		released := cg.released
		cg.mu.Unlock()
		if !released {
			cg.killAll()
		}
	}
	KillGroup(p.Cmd)
}

// CPU is the CPU time used so far by every process of the sandbox, children and dead
// processes included (after Release, its total). ok is false without a cgroup (sandbox
// none, cgroups off) or when the figure cannot be read.
func (p *Process) CPU() (used time.Duration, ok bool) {
	if p.cg == nil {
		return 0, false
	}
	used, err := p.cg.CPU()
	return used, err == nil
}

// answerCPU is the CPU time of every sandbox of p's answer (its Share); ok is false
// without one.
func (p *Process) answerCPU() (time.Duration, bool) {
	if p.cg == nil {
		return 0, false
	}
	return p.cg.answerCPU()
}

// OOMs is how many of the sandbox's processes the kernel has killed for its memory limit
// so far; 0 without a cgroup.
func (p *Process) OOMs() int64 {
	cg := p.cg
	if cg == nil {
		return 0
	}
	cg.mu.Lock()
	defer cg.mu.Unlock()
	if cg.released {
		return cg.ooms
	}
	return cg.liveOOM()
}

// KillStrays kills what the sandbox runs beyond its own processes
// (sandboxCgroup.killStrays) and returns how many it killed; without a cgroup, nothing.
func (p *Process) KillStrays() int {
	if p.cg == nil {
		return 0
	}
	return p.cg.killStrays()
}

// BotPid is the pid, as the daemon sees it, of the command the sandbox started (pid 2
// inside); 0 when unknown (no cgroup, or not started yet). KillStrays notes it as it
// looks; before that, it is looked up here.
func (p *Process) BotPid() int {
	cg := p.cg
	if cg == nil {
		return 0
	}
	cg.mu.Lock()
	defer cg.mu.Unlock()
	if cg.botPid == 0 && !cg.released {
		cg.botPid = cg.findBotPid()
	}
	return cg.botPid
}

// UID is the host uid the bot runs as when a root daemon's Bwrap took it from its pool;
// ok is false otherwise.
func (p *Process) UID() (uid int, ok bool) { return p.uid, p.pooled }

// cpuOver reports whether the cgroup's CPU watchdog killed the sandbox for its CPU time.
func (p *Process) cpuOver() bool { return p != nil && p.cg != nil && p.cg.cpuOver.Load() }

// oomKilled is the kill for memory of the sandbox's processes, if any, and at which bound
// (sandboxCgroup.oomKilled): the zero memKill when none, or without a cgroup.
func (p *Process) oomKilled() memKill {
	if p == nil || p.cg == nil {
		return memKill{}
	}
	return p.cg.oomKilled()
}

// releaseCgroup kills what is left of the sandbox and removes its cgroup, early (a
// long-lived process's, as soon as it exits); its CPU time and OOM count stay readable.
func (p *Process) releaseCgroup() {
	if p.cg != nil {
		_ = p.cg.release()
	}
}

// Release frees what the sandbox holds for the process: it kills whatever is left of the
// sandbox and removes its cgroup (its CPU time and OOM count stay readable), closes the
// files handed to bwrap, ends the sysinfo supervisor and gives the bot directory's uid
// back to the pool. Call it once the process has been waited for (or was never started)
// and its exit classified; later calls do nothing.
func (p *Process) Release() {
	if p == nil {
		return
	}
	p.once.Do(func() {
		p.releaseCgroup()
		if p.Cmd.ProcessState != nil {
			p.statusReport() // final once the process was waited for: keep it for classifyExit
		}
		for _, f := range p.Cmd.ExtraFiles {
			if f != nil {
				_ = f.Close()
			}
		}
		if p.freeUID != nil {
			p.freeUID()
		}
		p.sysinfo.stop()
	})
}

// CgroupDir is the directory of the sandbox's cgroup whose cgroup.procs lists its
// processes (the pids hierarchy's on v1, the one directory on v2); "" without a cgroup.
// It is gone once the Process is released.
func (p *Process) CgroupDir() string {
	if p.cg == nil {
		return ""
	}
	return p.cg.Dir(p.cg.Tree.Pids)
}
