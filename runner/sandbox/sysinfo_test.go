package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/bpf"
)

// sysinfoProbe prints what sysinfo(2) says (through glibc, and through the raw system
// call), sysconf's page counts, and statfs's free counts of a few visible filesystems,
// once per line read on stdin.
const sysinfoProbe = `
import ctypes, os, sys
class SI(ctypes.Structure):
    _fields_ = [("uptime", ctypes.c_long), ("loads", ctypes.c_ulong * 3), ("totalram", ctypes.c_ulong),
                ("freeram", ctypes.c_ulong), ("sharedram", ctypes.c_ulong), ("bufferram", ctypes.c_ulong),
                ("totalswap", ctypes.c_ulong), ("freeswap", ctypes.c_ulong), ("procs", ctypes.c_ushort),
                ("pad", ctypes.c_ushort), ("totalhigh", ctypes.c_ulong), ("freehigh", ctypes.c_ulong),
                ("mem_unit", ctypes.c_uint), ("_f", ctypes.c_char * 4)]
libc = ctypes.CDLL(None, use_errno=True)
def snap():
    a, b = SI(), SI()
    r = libc.sysinfo(ctypes.byref(a))
    rr = libc.syscall(SYSNR, ctypes.byref(b))
    bad = libc.syscall(SYSNR, ctypes.c_void_p(8))
    badErr = ctypes.get_errno()
    return ("r=%d raw=%d bad=%d/%d procs=%d rawprocs=%d free=%d loads=%d,%d,%d uptime=%d total=%d unit=%d swap=%d shared=%d buffer=%d "
            "phys=%d avphys=%d" % (r, rr, bad, badErr, a.procs, b.procs, a.freeram, a.loads[0], a.loads[1], a.loads[2],
            a.uptime, a.totalram, a.mem_unit, a.totalswap + a.freeswap, a.sharedram, a.bufferram,
            os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"), os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")))
print(snap(), flush=True)
for line in sys.stdin:
    print(snap(), flush=True)
`

// sysinfoNr is sysinfo's number here, for the probe's raw call.
func sysinfoNr(t testing.TB) string {
	nr, ok := nativeSeccomp.numbers["sysinfo"]
	if !ok {
		t.Skip("no system call table for this architecture")
	}
	return fmt.Sprint(nr)
}

// withoutSysinfo is sb without the sysinfo supervisor: the control runs.
func withoutSysinfo(sb *Bwrap) *Bwrap {
	c := *sb
	c.sysinfo = false
	return &c
}

// lineBot is a sandboxed process spoken to line by line.
type lineBot struct {
	proc  *Process
	stdin io.WriteCloser
	out   *bufio.Scanner
}

func startLineBot(t *testing.T, sb Sandbox, lim Limits, argv ...string) *lineBot {
	t.Helper()
	proc, err := sb.Command(context.Background(), ProcSpec{Dir: t.TempDir(), Argv: argv, Limits: lim})
	if err != nil {
		t.Fatal(err)
	}
	b := &lineBot{proc: proc}
	if b.stdin, err = proc.Cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := proc.Cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	proc.Cmd.Stderr = os.Stderr
	b.out = bufio.NewScanner(stdout)
	if err := proc.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		b.stdin.Close()
		proc.Kill()
		_ = proc.Wait()
		proc.Release()
	})
	return b
}

func (b *lineBot) ask(t *testing.T, line string) string {
	t.Helper()
	if line != "" {
		if _, err := io.WriteString(b.stdin, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	got := make(chan string, 1)
	go func() {
		if b.out.Scan() {
			got <- b.out.Text()
		}
		close(got)
	}()
	select {
	case l, ok := <-got:
		if !ok {
			t.Fatal("bot ended without a line")
		}
		return l
	case <-time.After(60 * time.Second):
		t.Fatal("bot: no line within a minute")
		return ""
	}
}

// field is the value of name= in a probe line.
func field(line, name string) string {
	for _, f := range strings.Fields(line) {
		if v, ok := strings.CutPrefix(f, name+"="); ok {
			return v
		}
	}
	return ""
}

// TestSandboxSysinfoConstant: a sandbox that starts 40 processes moves nothing another
// sandbox reads from sysinfo(2): its process count, free memory, loads and uptime are
// constants, totalram (and so sysconf(_SC_PHYS_PAGES) × the page size) is the sandbox's
// memory limit, and a bad pointer gets EFAULT. The control, the same sandboxes without
// the supervisor, sees the host's figures move.
func TestSandboxSysinfoConstant(t *testing.T) {
	sb := NeedBwrap(t)
	if err := userNotifAvailable(); err != nil || sb.seccomp == nil {
		t.Skipf("no seccomp user notification here: %v", err)
	}
	nr := sysinfoNr(t)
	probe := strings.ReplaceAll(sysinfoProbe, "SYSNR", nr)
	lim := Limits{MemoryMB: 300, Procs: 64}
	const forks = 40
	sender := "import os, sys, time\nsys.stdin.readline()\nfor _ in range(" + fmt.Sprint(forks) + "):\n    if os.fork() == 0:\n        time.sleep(60)\n        os._exit(0)\nprint('forked', flush=True)\nsys.stdin.readline()\n"
	run := func(t *testing.T, sb *Bwrap) (before, after string) {
		recv := startLineBot(t, sb, lim, "/usr/bin/python3", "-c", probe)
		before = recv.ask(t, "")
		send := startLineBot(t, sb, lim, "/usr/bin/python3", "-c", sender)
		if l := send.ask(t, "go"); l != "forked" {
			t.Fatalf("sender: %q", l)
		}
		after = recv.ask(t, "again")
		return before, after
	}
	t.Run("control", func(t *testing.T) {
		before, after := run(t, withoutSysinfo(sb))
		t.Logf("before %s\nafter  %s", before, after)
		if field(before, "procs") == field(after, "procs") && field(before, "free") == field(after, "free") {
			t.Errorf("without the supervisor the host's figures should move: %q, %q", before, after)
		}
	})
	t.Run("answered", func(t *testing.T) {
		before, after := run(t, sb)
		t.Logf("before %s\nafter  %s", before, after)
		if before != after {
			t.Errorf("sysinfo moved between\n%s\n%s", before, after)
		}
		mem := fmt.Sprint(int64(lim.MemoryMB) << 20)
		want := map[string]string{
			"r": "0", "raw": "0", "bad": "-1/14", "procs": "1", "rawprocs": "1", "loads": "0,0,0", "uptime": fmt.Sprint(sysinfoUptime),
			"total": mem, "unit": "1", "phys": mem, "free": fmt.Sprint(int64(lim.MemoryMB) << 20 / 4 * 3),
			"swap": "0", "shared": "0", "buffer": "0",
		}
		for k, v := range want {
			if got := field(after, k); got != v {
				t.Errorf("%s=%s, want %s", k, got, v)
			}
		}
	})
}

// BenchmarkLaunchBwrapNoSysinfo is the sandbox without the sysinfo helper: the difference
// from BenchmarkLaunchBwrap is what the helper (a start of the daemon's binary before
// bwrap) and its supervisor cost a launch.
func BenchmarkLaunchBwrapNoSysinfo(b *testing.B) { benchSandboxLaunch(b, withoutSysinfo(NeedBwrap(b))) }

// BenchmarkSysinfoCall is the cost of one sysinfo call in a sandbox, answered by the
// daemon and by the kernel (without the helper): the median wall time of a call, as the
// bot sees it, over bursts of calls within sysinfoBurst, and the daemon's CPU time per
// answered call (this process's, over the whole run).
func BenchmarkSysinfoCall(b *testing.B) {
	sb := NeedBwrap(b)
	const calls = sysinfoBurst / 2
	script := `
import ctypes, time
libc = ctypes.CDLL(None)
buf = ctypes.create_string_buffer(128)
ts = []
for _ in range(` + fmt.Sprint(calls) + `):
    t = time.perf_counter_ns()
    libc.sysinfo(buf)
    ts.append(time.perf_counter_ns() - t)
ts.sort()
print(ts[len(ts) // 2])
`
	for _, c := range []struct {
		name string
		sb   *Bwrap
	}{{"answered", sb}, {"kernel", withoutSysinfo(sb)}} {
		b.Run(c.name, func(b *testing.B) {
			var med []float64
			var daemon time.Duration
			for b.Loop() {
				proc, err := c.sb.Command(context.Background(), ProcSpec{Dir: b.TempDir(), Argv: []string{"/usr/bin/python3", "-c", script}})
				if err != nil {
					b.Fatal(err)
				}
				before := selfCPU()
				out, err := proc.Cmd.Output()
				daemon += selfCPU() - before
				proc.Release()
				var ns float64
				if _, serr := fmt.Sscanf(string(out), "%g", &ns); err != nil || serr != nil {
					b.Fatalf("%v %v: %s", err, serr, out)
				}
				med = append(med, ns)
			}
			slices.Sort(med)
			b.ReportMetric(med[len(med)/2]/1000, "call-µs")
			b.ReportMetric(float64(daemon.Microseconds())/float64(b.N*calls), "daemon-cpu-µs/call")
		})
	}
}

// TestSandboxSysinfoThroughLauncher: the bots kothd's launcher starts (one-shot argv and
// dirfiles decisions, in the launcher's own user and PID namespaces) get the same answer.
func TestSandboxSysinfoThroughLauncher(t *testing.T) {
	sb := NeedBwrap(t)
	if err := userNotifAvailable(); err != nil || sb.seccomp == nil {
		t.Skipf("no seccomp user notification here: %v", err)
	}
	probe := strings.ReplaceAll(sysinfoProbe, "SYSNR", sysinfoNr(t))
	lim := Limits{MemoryMB: 200, Procs: 32}
	l := NewLauncher(sb, ProcSpec{Dir: t.TempDir(), Argv: []string{"/usr/bin/python3", "-c", probe}, Limits: lim})
	defer l.Close()
	for range 2 {
		got, f := l.Run(context.Background(), nil, 20*time.Second)
		if f != nil {
			t.Fatalf("launcher: %v", f)
		}
		mem := fmt.Sprint(int64(lim.MemoryMB) << 20)
		if field(got, "r") != "0" || field(got, "procs") != "1" || field(got, "phys") != mem || field(got, "loads") != "0,0,0" {
			t.Errorf("a launcher's bot: %q, want procs=1 loads=0,0,0 phys=%s", got, mem)
		}
	}
}

// The helper's filter, in x/net/bpf's interpreter: sysinfo goes to the daemon, the rest
// to the sandbox's own filter, a foreign architecture is killed, x32 refused.
func TestNotifyProgram(t *testing.T) {
	vm, err := bpf.NewVM(notifyProgram(0xc000003e, 0x40000000, 99))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		arch, nr uint32
		want     uint32
	}{
		{"sysinfo", 0xc000003e, 99, seccompRetUserNotif},
		{"read", 0xc000003e, 0, seccompRetAllow},
		{"statfs", 0xc000003e, 137, seccompRetAllow},
		{"x32 sysinfo", 0xc000003e, 0x40000000 | 99, seccompRetErrno | uint32(syscall.ENOSYS)},
		{"i386 sysinfo (116)", 0x40000003, 116, seccompRetKillProcess},
	} {
		got, err := vm.Run(seccompData(c.nr, c.arch, [6]uint64{}))
		if err != nil || uint32(got) != c.want {
			t.Errorf("%s: %#x (%v), want %#x", c.name, got, err, c.want)
		}
	}
}

// A sandbox calling sysinfo in a loop is answered at sysinfoRate after a burst: the
// daemon's CPU it can spend is bounded.
func TestSysinfoRateBounded(t *testing.T) {
	s := newSysinfoSupervisor(nil, 1<<20)
	start := time.Now()
	for range sysinfoBurst + sysinfoRate/10 {
		s.wait()
	}
	if took, least := time.Since(start), time.Second/10*9/10; took < least {
		t.Errorf("%d answers in %v, want at least %v", sysinfoBurst+sysinfoRate/10, took, least)
	}
}

// TestSandboxStatfsDenied: statfs and fstatfs fail with ENOSYS (a filesystem's free
// counts, which any write to it moves, are a channel between sandboxes whose directories
// share a disk), and glibc's pathconf still answers. The control, without the filter,
// shows the counts of the bot directory's filesystem move when another sandbox writes.
func TestSandboxStatfsDenied(t *testing.T) {
	sb := NeedBwrap(t)
	if sb.seccomp == nil {
		t.Skip("no seccomp filter on this architecture")
	}
	probe := `import errno, os, sys
def s():
    out = []
    for p in ['/bot', '/etc/alternatives', '/usr/bin']:
        try:
            st = os.statvfs(p)
            out.append('%s:%d/%d' % (p, st.f_bfree, st.f_ffree))
        except OSError as e:
            out.append('%s:%s' % (p, errno.errorcode[e.errno]))
    try:
        fd = os.open('/usr/bin', os.O_RDONLY)
        os.fstatvfs(fd)
        out.append('fstatvfs:ok')
    except OSError as e:
        out.append('fstatvfs:%s' % errno.errorcode[e.errno])
    out.append('name_max:%d' % os.pathconf('/bot', 'PC_NAME_MAX'))
    return ' '.join(out)
print(s(), flush=True)
for line in sys.stdin:
    print(s(), flush=True)
`
	writer := "import sys\nsys.stdin.readline()\nopen('f', 'wb').write(b'x' * (8 << 20))\nprint('done', flush=True)\n"
	run := func(t *testing.T, sb *Bwrap) (before, after string) {
		recv := startLineBot(t, sb, Limits{}, "/usr/bin/python3", "-c", probe)
		before = recv.ask(t, "")
		send := startLineBot(t, sb, Limits{}, "/usr/bin/python3", "-c", writer)
		if l := send.ask(t, "go"); l != "done" {
			t.Fatalf("writer: %q", l)
		}
		return before, recv.ask(t, "again")
	}
	t.Run("control", func(t *testing.T) {
		before, after := run(t, unfiltered(sb))
		t.Logf("before %s\nafter  %s", before, after)
		if before == after {
			t.Errorf("without the filter the free counts should move: %q", before)
		}
	})
	t.Run("filtered", func(t *testing.T) {
		_, after := run(t, sb)
		want := "/bot:ENOSYS /etc/alternatives:ENOSYS /usr/bin:ENOSYS fstatvfs:ENOSYS name_max:255"
		if after != want {
			t.Errorf("got %q, want %q", after, want)
		}
	})
}

// TestSandboxHelperFitsOneProcess: a sandbox whose bot may have one process still starts.
// The helper is a Go program with several threads; started inside the sandbox's cgroup
// it would hit the task limit (Procs plus bwrap's two) and crash before bwrap ran. It
// joins the cgroup just before it becomes bwrap instead, and the bot runs inside it.
func TestSandboxHelperFitsOneProcess(t *testing.T) {
	sb := NeedBwrap(t)
	if !sb.sysinfo {
		t.Skipf("no sysinfo helper here: %v", sb.sysinfoErr)
	}
	proc, err := sb.Command(context.Background(), ProcSpec{Dir: t.TempDir(), Argv: []string{"/bin/echo", "hi"}, Limits: Limits{Procs: 1, MemoryMB: 16}})
	if err != nil {
		t.Fatal(err)
	}
	defer proc.Release()
	out, err := proc.Cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "hi" {
		t.Errorf("a one-process sandbox: %v: %.300q", err, out)
	}
	if sb.cgroups != nil {
		if cpu, ok := proc.CPU(); !ok || cpu == 0 {
			t.Errorf("the sandbox's cgroup counted no CPU (%v, %v): its processes ran outside", cpu, ok)
		}
	}
}
