package sandbox

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCgroupSandbox runs a bot whose four forked children spin, under real bwrap and the
// host's real cgroups: every process of the sandbox is in the sandbox's own cgroup, the
// children's CPU time is charged to the sandbox (SandboxCPU), the sandbox gets no more
// than one CPU however many children spin, and releasing the command kills what is left
// and removes the cgroup.
func TestCgroupSandbox(t *testing.T) {
	sb := NeedBwrap(t)
	if sb.cgroups == nil {
		t.Fatal("the bwrap sandbox runs without cgroups")
	}
	dir := t.TempDir()
	script := `for i in 1 2 3 4; do (while :; do :; done) & done; echo started; wait`
	proc, err := sb.Command(context.Background(), ProcSpec{Dir: dir, Argv: []string{"/bin/sh", "-c", script},
		Limits: Limits{MemoryMB: 64, Procs: 16}})
	if err != nil {
		t.Fatal(err)
	}
	cmd := proc.Cmd
	defer proc.Release()
	cg := proc.cg
	if cg == nil {
		t.Fatal("the command has no cgroup")
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 8)
	if n, err := stdout.Read(buf); err != nil || !strings.HasPrefix(string(buf[:n]), "started") {
		t.Fatalf("the bot did not start: %q %v", buf[:n], err)
	}
	cpu0, _ := proc.CPU()
	start := time.Now()

	// The limits are those asked for.
	mem, _ := os.ReadFile(filepath.Join(cg.Dir(cg.Tree.Mem), pick(cg.Tree.V2, "memory.max", "memory.limit_in_bytes")))
	pids, _ := os.ReadFile(filepath.Join(cg.Dir(cg.Tree.Pids), "pids.max"))
	if strings.TrimSpace(string(mem)) != strconv.Itoa(64<<20) || strings.TrimSpace(string(pids)) != strconv.Itoa(16+sandboxTasks) {
		t.Errorf("cgroup limits: memory %q, pids %q", mem, pids)
	}
	// Every process of the sandbox (bwrap, its init, the shell, the four spinners) is in
	// the sandbox's cgroup, in every hierarchy.
	procs, err := os.ReadFile(filepath.Join(cg.Dir(cg.Tree.Pids), "cgroup.procs"))
	if err != nil {
		t.Fatal(err)
	}
	members := strings.Fields(string(procs))
	if len(members) < 7 {
		t.Errorf("cgroup holds %d processes, want bwrap, its init, the shell and 4 children: %v", len(members), members)
	}
	for _, p := range members {
		own, _ := os.ReadFile("/proc/" + p + "/cgroup")
		for _, line := range strings.Split(strings.TrimSpace(string(own)), "\n") {
			if (cg.Tree.V2 || strings.Contains(line, ":memory:") || strings.Contains(line, ":pids:") || strings.Contains(line, ":cpu:") || strings.Contains(line, ":cpuacct:")) &&
				!strings.HasSuffix(line, "/"+cg.name) {
				t.Errorf("process %s is outside the sandbox's cgroup: %s", p, line)
			}
		}
	}
	if self, _ := os.ReadFile("/proc/self/cgroup"); strings.Contains(string(self), cg.name) {
		t.Errorf("the daemon itself joined the sandbox's cgroup: %s", self)
	}

	time.Sleep(2 * time.Second)
	wall := time.Since(start)
	cpu1, ok := proc.CPU()
	if !ok {
		t.Fatal("SandboxCPU: no figure")
	}
	used := cpu1 - cpu0
	t.Logf("four spinners used %v of CPU in %v", used, wall)
	if used < 50*time.Millisecond {
		t.Errorf("the children's CPU time is not charged to the sandbox: %v in %v", used, wall)
	}
	// One CPU's bandwidth, with a period's grace at each end.
	if limit := wall*SandboxCPUs + 250*time.Millisecond; used > limit {
		t.Errorf("the sandbox used %v of CPU in %v, more than %d CPU", used, wall, SandboxCPUs)
	}

	KillGroup(cmd)
	_ = cmd.Wait()
	proc.Release()
	for _, d := range cg.dirs {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("cgroup %s left behind (%v)", d, err)
		}
	}
	if final, ok := proc.CPU(); !ok || final < cpu1 {
		t.Errorf("CPU time after release: %v %v, want at least %v", final, ok, cpu1)
	}
	// A killed process leaves its cgroup early in its exit (cgroup v1 detaches it before
	// it becomes a zombie), so the cgroup can be gone while the process is still dying:
	// give the kernel a moment to finish, then none may be left.
	for _, p := range members {
		pid, _ := strconv.Atoi(p)
		for end := time.Now().Add(5 * time.Second); processAlive(pid) && time.Now().Before(end); {
			time.Sleep(10 * time.Millisecond)
		}
		if processAlive(pid) {
			t.Errorf("process %d of the sandbox still runs", pid)
		}
	}
}

// processAlive reports whether pid is a live process (not a zombie).
func processAlive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}

// TestCgroupsOff: the opt-out works and is said loudly.
func TestCgroupsOff(t *testing.T) {
	NeedBwrap(t)
	var log strings.Builder
	sb, err := NewSandboxCgroups("bwrap", CgroupsOff, slog.New(slog.NewTextHandler(&log, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if sb.(*Bwrap).cgroups != nil || !strings.Contains(log.String(), "level=ERROR") || !strings.Contains(log.String(), "CGROUPS DISABLED") {
		t.Errorf("cgroups: off: tree %v, log %q", sb.(*Bwrap).cgroups, log.String())
	}
	if _, err := NewSandboxCgroups("bwrap", "maybe", slog.New(slog.NewTextHandler(&log, nil))); err == nil || !strings.Contains(err.Error(), "maybe") {
		t.Errorf("an unknown setting: %v", err)
	}
	if err := CheckCgroups(); err != nil {
		t.Errorf("CheckCgroups on a host where the sandbox uses them: %v", err)
	}
}

// The daemon's cgroup as the mount shows it: systemd's services live at
// /system.slice/<unit> of a v2 mount whose root is "/"; inside a cgroup namespace the
// mount shows a subtree. (The v2 path was once point+path minus the root, without a
// separator: "/sys/fs/cgroupsystem.slice/kothd.service", and no v2 host could play.)
func TestCgroupMountDir(t *testing.T) {
	for _, c := range []struct {
		m          cgroupMount
		path, want string
	}{
		{cgroupMount{point: "/sys/fs/cgroup", root: "/"}, "/system.slice/kothd.service", "/sys/fs/cgroup/system.slice/kothd.service"},
		{cgroupMount{point: "/sys/fs/cgroup", root: "/"}, "/", "/sys/fs/cgroup"},
		{cgroupMount{point: "/sys/fs/cgroup/memory", root: "/"}, "/user.slice", "/sys/fs/cgroup/memory/user.slice"},
		{cgroupMount{point: "/sys/fs/cgroup", root: "/docker/abc"}, "/docker/abc/sub", "/sys/fs/cgroup/sub"},
	} {
		if got := c.m.dir(c.path); got != c.want {
			t.Errorf("%+v.dir(%q) = %q, want %q", c.m, c.path, got, c.want)
		}
	}
}
