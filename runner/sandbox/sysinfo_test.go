package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"
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
