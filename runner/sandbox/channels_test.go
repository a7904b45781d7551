package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/kothd/kothd/engine"
)

// Two bots in different sandboxes try to pass a 16-bit value through state the sandboxes
// share (testdata/channels/chan.c, compiled on the host). Each channel is tried twice:
// in sandboxes without the seccomp filter (the value must get through, or the test could
// not tell a closed channel from a broken bot) and in the real ones, where the receiver
// must decode nothing and its system call must fail with the filter's errno.

var chanBin = sync.OnceValues(func() (string, error) {
	if _, err := exec.LookPath("gcc"); err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "kothd-chan-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "chan")
	out, err := exec.Command("gcc", "-O1", "-o", bin, "testdata/channels/chan.c").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("gcc: %v: %s", err, out)
	}
	return bin, nil
})

func needChan(t testing.TB) string {
	t.Helper()
	bin, err := chanBin()
	if err != nil {
		t.Skipf("channel bot: %v", err)
	}
	return bin
}

// channelFiles picks n regular files of /usr, the same on every run: what every sandbox
// sees read-only.
func channelFiles(t testing.TB, n int) []string {
	t.Helper()
	var files []string
	_ = filepath.WalkDir("/usr/share", func(p string, d fs.DirEntry, err error) error {
		if err != nil || len(files) >= n {
			return fs.SkipDir
		}
		if d.Type().IsRegular() {
			if st, err := d.Info(); err == nil && st.Size() >= 64<<10 && st.Size() <= 8<<20 && st.Mode().Perm()&0o004 != 0 {
				files = append(files, p)
			}
		}
		return nil
	})
	if len(files) < n {
		t.Skipf("only %d files of 64 KiB–8 MiB under /usr/share", len(files))
	}
	return files
}

// unfiltered is sb without the seccomp filter: main's sandbox, for the control runs.
func unfiltered(sb *Bwrap) *Bwrap {
	c := *sb
	c.seccomp, c.launcherSeccomp = nil, nil
	return &c
}

type chanProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
}

// startChan starts the channel bot in a sandbox of its own over a fresh directory.
func startChan(t *testing.T, sb Sandbox, bin string, args ...string) *chanProc {
	t.Helper()
	dir := t.TempDir()
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "chan"), data, 0o755); err != nil {
		t.Fatal(err)
	}
	proc, err := sb.Command(context.Background(), ProcSpec{Dir: dir, Argv: append([]string{"./chan"}, args...)})
	if err != nil {
		t.Fatal(err)
	}
	cmd := proc.Cmd
	p := &chanProc{cmd: cmd}
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	p.out = bufio.NewReader(stdout)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		KillGroup(cmd)
		_ = cmd.Wait()
		proc.Release()
	})
	return p
}

func (p *chanProc) line(t *testing.T) string {
	t.Helper()
	done := make(chan string, 1)
	go func() {
		l, _ := p.out.ReadString('\n')
		done <- strings.TrimSpace(l)
	}()
	select {
	case l := <-done:
		return l
	case <-time.After(60 * time.Second):
		KillGroup(p.cmd)
		t.Fatal("channel bot: no line within a minute")
		return ""
	}
}

func (p *chanProc) finish(t *testing.T) string {
	t.Helper()
	_ = p.stdin.Close()
	l := p.line(t)
	_ = p.cmd.Wait()
	return l
}

// passValue has a sender put value into the channel and a receiver read it, each in its
// own sandbox; it returns what the receiver decoded and the first errno it met.
func passValue(t *testing.T, sb Sandbox, bin, channel string, value uint32, files []string) (uint32, syscall.Errno) {
	t.Helper()
	sendArgs := append([]string{channel, "send", strconv.Itoa(int(value))}, files...)
	recvArgs := append([]string{channel, "recv", "0"}, files...)
	var res string
	switch channel {
	case "cache", "mincore":
		// One after the other: the sender has ended before the receiver starts.
		startChan(t, sb, bin, sendArgs...).finish(t)
		res = startChan(t, sb, bin, recvArgs...).finish(t)
	case "inotify":
		r := startChan(t, sb, bin, recvArgs...)
		if l := r.line(t); l != "ready" {
			t.Fatalf("receiver: %q", l)
		}
		startChan(t, sb, bin, sendArgs...).finish(t)
		res = r.finish(t)
	default: // a lasting state: the sender holds it while the receiver looks
		s := startChan(t, sb, bin, sendArgs...)
		if l := s.line(t); l != "ready" {
			t.Fatalf("sender: %q", l)
		}
		res = startChan(t, sb, bin, recvArgs...).finish(t)
		s.finish(t)
	}
	var got uint32
	var errno int
	if _, err := fmt.Sscanf(res, "value=%d err=%d", &got, &errno); err != nil {
		t.Fatalf("receiver said %q: %v", res, err)
	}
	return got, syscall.Errno(errno)
}

func TestSandboxChannelsClosed(t *testing.T) {
	sb := NeedBwrap(t)
	if sb.seccomp == nil {
		t.Skip("no seccomp filter on this architecture")
	}
	bin := needChan(t)
	files := channelFiles(t, 16)
	const value = 0xb5a3
	for _, c := range []struct {
		channel string
		errno   syscall.Errno
		control bool // the channel carries the value without the filter on this host
	}{
		{"flock", syscall.EPERM, true},
		{"fcntl", syscall.EPERM, true},
		{"ofd", syscall.EPERM, true},
		{"cache", syscall.EPERM, true}, // fadvise evicts, preadv2(RWF_NOWAIT) probes
		// fadvise evicts, mincore probes. Since Linux 5.0 mincore reports every page of a
		// file the caller may not write as cached, so this one is closed without the
		// filter too; the filter denies the call all the same.
		{"mincore", syscall.EPERM, false},
		{"inotify", syscall.EPERM, true}, // an open of a shared file is an event
		// The user keyring belongs to a uid in its user namespace (Linux 5.3 on): neither
		// a root daemon's sandboxes (a uid each) nor a non-root daemon's (a user
		// namespace each) share one here. The filter denies keyrings all the same.
		{"keyring", syscall.EPERM, false},
	} {
		t.Run(c.channel, func(t *testing.T) {
			if c.control {
				// The control shows the channel works here; on a busy host other processes
				// reading the same files may flip a bit of the page-cache probe, so two of
				// the sixteen may be wrong. With the filter nothing at all may arrive.
				if got, errno := passValue(t, unfiltered(sb), bin, c.channel, value, files); bits.OnesCount32(got^value) > 2 {
					t.Fatalf("control: without the filter the receiver decoded %#x (errno %v), not %#x: "+
						"the test cannot tell whether the filter closes the channel", got, errno, value)
				}
			}
			got, errno := passValue(t, sb, bin, c.channel, value, files)
			if got != 0 || errno != c.errno {
				t.Errorf("with the filter the receiver decoded %#x (want nothing) with errno %v (want %v)", got, errno, c.errno)
			}
		})
	}
}

// TestSandboxDeniesNamespacesAndOtherProcesses: no way to a new user namespace (clone3
// answers ENOSYS so that glibc falls back to clone), no ptrace or reading another process's
// memory, and a 32-bit argument's upper half does not hide a denied value.
func TestSandboxDeniesNamespacesAndOtherProcesses(t *testing.T) {
	sb := NeedBwrap(t)
	if sb.seccomp == nil {
		t.Skip("no seccomp filter on this architecture")
	}
	bin := needChan(t)
	if l := startChan(t, sb, bin, "userns", "probe", "0").finish(t); l != "unshare=1 clone3=38 clone=1 unshare_hi=1" {
		t.Errorf("user namespaces: %q, want every way denied", l)
	}
	if l := startChan(t, sb, bin, "ptrace", "probe", "0").finish(t); l != "ptrace=1 process_vm_readv=1 kcmp=1 fcntl_hi=1" {
		t.Errorf("other processes: %q, want every call denied", l)
	}
	// Control: the probe tells the calls that work from those that do not.
	if l := startChan(t, unfiltered(sb), bin, "ptrace", "probe", "0").finish(t); !strings.HasPrefix(l, "ptrace=0 process_vm_readv=0") {
		t.Errorf("without the filter: %q, want ptrace and process_vm_readv to work", l)
	}
}

// TestSandboxFilterActive: every bot process runs under the filter, also those kothd's
// launcher starts (its own filter stacked on the sandbox's), and the launcher still gets
// its PID namespace.
func TestSandboxFilterActive(t *testing.T) {
	sb := NeedBwrap(t)
	if sb.seccomp == nil {
		t.Skip("no seccomp filter on this architecture")
	}
	out, err := runIn(t, sb, t.TempDir(), Limits{}, `grep -E '^Seccomp(_filters)?:' /proc/self/status | tr '\t\n' '  '`)
	if err != nil || !strings.Contains(out, "Seccomp: 2 ") {
		t.Errorf("sandbox: %v: %q, want Seccomp: 2", err, out)
	}
	bin := needChan(t)
	dir := t.TempDir()
	data, _ := os.ReadFile(bin)
	if err := os.WriteFile(filepath.Join(dir, "chan"), data, 0o755); err != nil {
		t.Fatal(err)
	}
	l := NewLauncher(sb, ProcSpec{Dir: dir, Argv: []string{"sh", "-c", `grep -E '^Seccomp_filters:' /proc/self/status | tr '\t' ' '; ./chan userns probe 0`}})
	defer l.Close()
	got, f := l.Run(context.Background(), nil, 20*time.Second)
	if f != nil {
		t.Fatalf("launcher: %v", f)
	}
	// The sandbox's, the launcher's, and the sysinfo helper's (sysinfo.go), on top of what
	// this process has: a service manager may have stacked its own on the daemon already
	// (systemd does for RestrictSUIDSGID=, LockPersonality=, RestrictAddressFamilies=, … of
	// the shipped unit), which every child inherits.
	filters := ownSeccompFilters(t) + 2
	if sb.sysinfo {
		filters++
	}
	if !strings.Contains(got, fmt.Sprintf("Seccomp_filters: %d", filters)) || !strings.Contains(got, "unshare=1 clone3=38 clone=1") {
		t.Errorf("a launcher's bot: %q, want %d filters and no user namespace", got, filters)
	}
	lp, err := l.get(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if lp.isolation != "pidns" {
		t.Errorf("launcher isolation %q, want pidns", lp.isolation)
	}
	l.put(lp)
}

// TestSandboxUIDs: a root daemon runs each bot directory's sandboxes as a uid of its own,
// the same for two sandboxes of one directory.
func TestSandboxUIDs(t *testing.T) {
	sb := NeedBwrap(t)
	if !sb.root || sb.uids == nil {
		t.Skip("not a root daemon with a uid pool")
	}
	uidOf := func(dir string) (int, *exec.Cmd) {
		proc, err := sb.Command(context.Background(), ProcSpec{Dir: dir, Argv: []string{"sh", "-c", "id -u; id -g; sleep 1"}})
		if err != nil {
			t.Fatal(err)
		}
		cmd := proc.Cmd
		out, err := cmd.Output()
		proc.Release()
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(string(out))
		uid, _ := strconv.Atoi(f[0])
		if len(f) != 2 || f[0] != f[1] {
			t.Errorf("uid and gid: %q", out)
		}
		if pooled, ok := proc.UID(); !ok || pooled != uid {
			t.Errorf("SandboxUID %d, %v; the bot ran as %d", pooled, ok, uid)
		}
		return uid, cmd
	}
	a, b := t.TempDir(), t.TempDir()
	var ua, ub, ua2 int
	var wg sync.WaitGroup
	var keep []*exec.Cmd
	var mu sync.Mutex
	for _, x := range []struct {
		dir string
		uid *int
	}{{a, &ua}, {b, &ub}, {a, &ua2}} {
		wg.Go(func() {
			u, cmd := uidOf(x.dir)
			mu.Lock()
			*x.uid, keep = u, append(keep, cmd)
			mu.Unlock()
		})
	}
	wg.Wait()
	if ua == ub || ua < DefaultBotUIDBase || ub < DefaultBotUIDBase || ua >= DefaultBotUIDBase+DefaultBotUIDCount {
		t.Errorf("two bots ran as %d and %d: want distinct uids of the pool from %d", ua, ub, DefaultBotUIDBase)
	}
	if ua2 != ua {
		t.Errorf("two sandboxes of one directory ran as %d and %d", ua, ua2)
	}
	if st, err := os.Stat(a); err != nil || int(st.Sys().(*syscall.Stat_t).Uid) != ua {
		t.Errorf("the bot's directory is not its uid's: %v", err)
	}
}

func TestUIDPool(t *testing.T) {
	p := newUIDPool(100, 3, nil)
	freed := make(chan int, 10)
	p.onFree = func(uid int) { freed <- uid }
	a, _ := p.acquire("/a")
	b, _ := p.acquire("/b")
	a2, _ := p.acquire("/a")
	c, _ := p.acquire("/c")
	if a != 100 || b != 101 || a2 != a || c != 102 {
		t.Fatalf("uids %d %d %d %d", a, b, a2, c)
	}
	if _, err := p.acquire("/d"); err == nil {
		t.Fatal("a fourth directory got a uid from a pool of three held ones")
	}
	p.release(b)
	d, err := p.acquire("/d")
	if err != nil || d != b {
		t.Fatalf("after /b's release /d got %d, %v; want %d", d, err, b)
	}
	if u, _ := p.acquire("/b"); u == b {
		t.Errorf("/b got its old uid %d, now /d's", u)
	}
}

// Two pools claiming uids in one file – two kothd processes on a host – never hold
// the same uid at once: a uid the other holds is skipped, and taken once it is released;
// an idle directory whose uid the other took meanwhile gets another.
func TestUIDPoolClaimsHostWide(t *testing.T) {
	path := filepath.Join(t.TempDir(), "claims")
	open := func() *os.File {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	a, b := newUIDPool(100, 3, open()), newUIDPool(100, 3, open())
	a1, err1 := a.acquire("/a1")
	b1, err2 := b.acquire("/b1")
	a2, err3 := a.acquire("/a2")
	if err1 != nil || err2 != nil || err3 != nil || a1 != 100 || b1 != 101 || a2 != 102 {
		t.Fatalf("uids %d %d %d (%v %v %v); want 100, 101 (100 is the other's), 102", a1, b1, a2, err1, err2, err3)
	}
	if u, err := b.acquire("/b2"); err == nil {
		t.Fatalf("the second pool got uid %d while the first held the other two", u)
	}
	a.release(a1)
	if u, err := b.acquire("/b2"); err != nil || u != a1 {
		t.Fatalf("after the first pool released %d, the second got %d, %v", a1, u, err)
	}
	// /a1 is idle and its uid the other pool's now: /a1 gets another, once one is free.
	b.release(b1)
	if u, err := a.acquire("/a1"); err != nil || u != b1 {
		t.Fatalf("/a1 came back as %d, %v; want %d, the only free uid", u, err, b1)
	}

	// The file cleared away (as from /run): each pool claims on the new file from its next
	// claim on, the uids it holds included, so a process started after the clearing takes
	// none of them.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	a.release(a2) // 102 free; a holds 101 (/a1), b holds 100 (/b2)
	if u, err := a.acquire("/a3"); err != nil || u != a2 {
		t.Fatalf("after the clearing the first pool got %d, %v; want %d", u, err, a2)
	}
	if u, err := b.acquire("/b3"); err == nil {
		t.Fatalf("the second pool got %d while the other held the rest", u)
	}
	c := newUIDPool(100, 3, open())
	if u, err := c.acquire("/c1"); err == nil {
		t.Errorf("a process started after the clearing got uid %d, held by another", u)
	}
}

// Two sandboxes of the host's kind made in one process (as by two kothd processes) run
// their bots as different uids at the same time.
func TestTwoSandboxesNeverShareAUID(t *testing.T) {
	first := NeedBwrap(t)
	if !first.root || first.uids == nil || first.uids.claims == nil {
		t.Skip("not a root daemon claiming uids host-wide")
	}
	sb, err := NewSandbox("bwrap", slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	second := sb.(*Bwrap)
	var procs []*Process
	defer func() {
		for _, p := range procs {
			p.Release()
		}
	}()
	seen := map[int]string{}
	for i, b := range []*Bwrap{first, second, first, second} {
		p, err := b.Command(context.Background(), ProcSpec{Dir: t.TempDir(), Argv: []string{"true"}})
		if err != nil {
			t.Fatal(err)
		}
		procs = append(procs, p)
		uid, _ := p.UID()
		who := fmt.Sprintf("sandbox %d, bot %d", i%2+1, i/2+1)
		if other, ok := seen[uid]; ok {
			t.Errorf("%s and %s both run as uid %d", other, who, uid)
		}
		seen[uid] = who
	}
}

// TestSandboxHidesInterpretersNotNamed: /usr/local and pyenv's versions are hidden but for
// the prefix a command names, and the named ones work.
func TestSandboxHidesInterpretersNotNamed(t *testing.T) {
	sb := NeedBwrap(t)
	out, err := runIn(t, sb, t.TempDir(), Limits{}, `ls /usr/local 2>&1; ls /root/.pyenv/versions 2>&1; mkdir /usr/local/kothd-probe 2>/dev/null && echo wrote; echo end`)
	if err != nil || strings.Contains(out, "bin") || strings.Contains(out, "3.13") || strings.Contains(out, "2.7") || strings.Contains(out, "wrote") {
		t.Errorf("a command that names no prefix sees: %v: %s", err, out)
	}
	py2 := "/root/.pyenv/versions/2.7.18/bin/python2.7"
	if _, err := os.Stat(py2); err == nil {
		proc, err := sb.Command(context.Background(), ProcSpec{Dir: t.TempDir(), Argv: []string{py2, "-c",
			"import os; print(sorted(os.listdir('/root/.pyenv/versions'))); print(os.path.exists('/usr/local/bin'))"}})
		if err != nil {
			t.Fatal(err)
		}
		cmd := proc.Cmd
		out, err := cmd.CombinedOutput()
		proc.Release()
		if err != nil || strings.TrimSpace(string(out)) != "['2.7.18']\nFalse" {
			t.Errorf("python2.7 sees: %v: %s", err, out)
		}
	}
	if _, err := os.Stat("/usr/local/go/bin/go"); err == nil {
		proc, err := sb.Command(context.Background(), ProcSpec{Dir: t.TempDir(), Argv: []string{"sh", "-c",
			"ls /usr/local; GOCACHE=/tmp/x /usr/local/go/bin/go version >/dev/null && echo go-ok"}, Limits: Limits{MemoryMB: 1024}})
		if err != nil {
			t.Fatal(err)
		}
		cmd := proc.Cmd
		out, err := cmd.CombinedOutput()
		proc.Release()
		if f := strings.Fields(string(out)); err != nil || !slices.Equal(f, []string{"go", "go-ok"}) {
			t.Errorf("a build script naming /usr/local/go sees: %v: %s", err, out)
		}
	}
}

// globalCounterFiles and globalCounterDirs are what TestSandboxMasksGlobalCounters expects
// masked, listed here again (not read from maskedProc) so that dropping one from bwrap.go
// fails the test. Paths a host lacks are skipped.
var (
	globalCounterFiles = []string{
		"/proc/loadavg", "/proc/locks", "/proc/key-users", "/proc/keys", "/proc/vmstat", "/proc/zoneinfo",
		"/proc/buddyinfo", "/proc/pagetypeinfo", "/proc/diskstats", "/proc/interrupts", "/proc/softirqs",
		"/proc/schedstat", "/proc/timer_list", "/proc/sched_debug", "/proc/kallsyms",
		"/proc/uptime", "/proc/swaps", "/proc/cgroups", "/proc/crypto", "/proc/modules", "/proc/mdstat",
		"/proc/latency_stats", "/proc/lock_stat", "/proc/slabinfo", "/proc/vmallocinfo", "/proc/allocinfo",
		"/proc/sys/fs/file-nr", "/proc/sys/fs/inode-nr", "/proc/sys/fs/inode-state", "/proc/sys/fs/dentry-state",
		"/proc/sys/fs/aio-nr", "/proc/sys/kernel/pty/nr", "/proc/sys/kernel/hung_task_detect_count",
		"/proc/sys/kernel/random/entropy_avail", "/proc/sys/kernel/random/boot_id",
		"/proc/sys/kernel/ns_last_pid", "/proc/sys/kernel/tainted",
	}
	globalCounterDirs = []string{
		"/proc/pressure", "/proc/fs", "/proc/irq", "/proc/spl", "/proc/sys/fs/quota",
	}
)

// TestSandboxMasksGlobalCounters: the files of /proc that tally the whole machine (open
// files, threads, ptys, idle CPU time, cgroups, swap, interrupts, filesystems' block
// groups...) cannot be read, and the directories of such counters are empty; the
// sandbox's own /proc entries can be read.
func TestSandboxMasksGlobalCounters(t *testing.T) {
	sb := NeedBwrap(t)
	var args []string
	for _, p := range append(slices.Clone(globalCounterFiles), maskedProc...) {
		if st, err := os.Stat(p); err == nil && !st.IsDir() && !slices.Contains(args, p) {
			args = append(args, p)
		}
	}
	files := len(args)
	for _, p := range append(slices.Clone(globalCounterDirs), maskedProcDirs...) {
		if st, err := os.Stat(p); err == nil && st.IsDir() && !slices.Contains(args, "dir:"+p) {
			args = append(args, "dir:"+p)
		}
	}
	if files < 20 {
		t.Errorf("only %d of the global counters exist on this host: %v", files, args)
	}
	script := `for a; do
		case $a in
		dir:*) d=${a#dir:}; [ -z "$(ls -A "$d" 2>&1)" ] || echo "listed $d: $(ls -A "$d" 2>&1 | head -3 | tr '\n' ' ')";;
		*) cat "$a" >/dev/null 2>&1 && echo "read $a";;
		esac
	done
	grep -c . /proc/self/status`
	out, err := runIn(t, sb, t.TempDir(), Limits{}, script, args...)
	if err != nil || strings.Contains(out, "read ") || strings.Contains(out, "listed ") {
		t.Errorf("%v: %s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if n, _ := strconv.Atoi(lines[len(lines)-1]); n < 10 {
		t.Errorf("the sandbox cannot read its own /proc/self/status: %q", out)
	}
}

// TestSandboxMasksMovingStatAndMeminfo: /proc/stat, /proc/meminfo and /proc/cpuinfo, which
// runtimes parse, are constant copies: a burst of processes and allocations outside the
// sandbox (on the host and in another sandbox) changes nothing in them, while the host's
// own files move. They still parse: a cpuN line per CPU of the host (os.cpu_count counts
// them where /sys is missing), the host's MemTotal.
func TestSandboxMasksMovingStatAndMeminfo(t *testing.T) {
	sb := NeedBwrap(t)
	read := `for f in /proc/stat /proc/meminfo /proc/cpuinfo; do echo "== $f"; cat "$f" || echo "unreadable $f"; done`
	before, err := runIn(t, sb, "", Limits{}, read)
	if err != nil {
		t.Fatalf("%v: %s", err, before)
	}
	hostStat, _ := os.ReadFile("/proc/stat")
	hostMem, _ := os.ReadFile("/proc/meminfo")

	// The burst: 64 MiB touched and 40 processes here, 40 processes and 64 MiB in another
	// sandbox.
	mem := make([]byte, 64<<20)
	for i := range mem {
		if i%4096 == 0 {
			mem[i] = 1
		}
	}
	for range 40 {
		if err := exec.Command("true").Run(); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := runIn(t, sb, "", Limits{MemoryMB: 256}, `for i in $(seq 40); do /bin/true; done
		head -c 67108864 /dev/zero | { x=$(cat | tr '\0' a); echo ${#x}; }`); err != nil {
		t.Fatalf("the other sandbox: %v: %s", err, out)
	}
	after, err := runIn(t, sb, "", Limits{}, read)
	runtime.KeepAlive(mem)
	if err != nil {
		t.Fatalf("%v: %s", err, after)
	}
	hostStat2, _ := os.ReadFile("/proc/stat")
	hostMem2, _ := os.ReadFile("/proc/meminfo")
	if string(hostStat) == string(hostStat2) || string(hostMem) == string(hostMem2) {
		t.Fatal("the host's /proc/stat or /proc/meminfo did not move: the burst proves nothing")
	}
	if before != after {
		t.Errorf("the sandbox's /proc/stat, meminfo or cpuinfo moved with the burst outside:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if strings.Contains(after, "unreadable") {
		t.Errorf("a constant copy cannot be read: %s", after)
	}

	// What programs parse is still there.
	cpus := func(stat string) int {
		n := 0
		for line := range strings.Lines(stat) {
			if f := strings.Fields(line); len(f) > 1 && strings.HasPrefix(f[0], "cpu") && f[0] != "cpu" {
				n++
			}
		}
		return n
	}
	stat, rest, _ := strings.Cut(strings.TrimPrefix(after, "== /proc/stat\n"), "== /proc/meminfo\n")
	meminfo, _, _ := strings.Cut(rest, "== /proc/cpuinfo\n")
	if got, want := cpus(stat), cpus(string(hostStat2)); got != want || want == 0 {
		t.Errorf("the sandbox's /proc/stat has %d cpuN lines, the host's %d:\n%s", got, want, stat)
	}
	for _, line := range []string{"\nprocesses 0\n", "\nctxt 0\n", "\nprocs_running 1\n", "\nprocs_blocked 0\n", "\nbtime "} {
		if !strings.Contains(stat, line) {
			t.Errorf("the sandbox's /proc/stat lacks %q:\n%s", line, stat)
		}
	}
	total := func(meminfo string) string {
		for line := range strings.Lines(meminfo) {
			if strings.HasPrefix(line, "MemTotal:") {
				return line
			}
		}
		return ""
	}
	if got, want := total(meminfo), total(string(hostMem2)); got != want || want == "" {
		t.Errorf("the sandbox's MemTotal is %q, the host's %q", got, want)
	}
	if _, err := exec.LookPath("python3"); err == nil {
		out, err := runIn(t, sb, "", Limits{}, `python3 -c 'import os; print(os.cpu_count())'; { echo x >/proc/stat; } 2>/dev/null && echo wrote-stat; true`)
		if strings.TrimSpace(out) != strconv.Itoa(cpus(string(hostStat2))) {
			t.Errorf("python3's os.cpu_count() in the sandbox: %v: %s", err, out)
		}
	}
}

// TestSandboxNoPty: a bot cannot open a pty. The kernel counts and caps ptys host-wide
// (kernel.pty.max): two sandboxes that opened ptys until refused left none to any container
// of the host, and /proc/sys/kernel/pty/nr passed exact counts from one to the other.
func TestSandboxNoPty(t *testing.T) {
	sb := NeedBwrap(t)
	script := `for p in /dev/ptmx /dev/pts/ptmx; do (exec 3<>"$p") 2>/dev/null && echo "opened $p"; done
		echo "pts: $(ls -A /dev/pts 2>&1)"
		mkdir /dev/pts/x 2>/dev/null && echo "wrote /dev/pts"
		if command -v python3 >/dev/null; then
			python3 -c 'import os; os.openpty(); print("openpty worked")' 2>/dev/null
			python3 -c 'import pty, os; pty.fork()[0] or os._exit(0); print("pty.fork worked")' 2>/dev/null
		fi
		echo done`
	out, err := runIn(t, sb, "", Limits{}, script)
	if err != nil || strings.TrimSpace(out) != "pts: \ndone" {
		t.Errorf("%v: %q", err, out)
	}
}

// BenchmarkTimingChannel measures what remains open: CPU contention. The sender spins
// through a slot for a 1 and sleeps for a 0; the receiver, pinned to the same CPU, counts
// loop turns per slot and reads a 1 where it got fewer. Both run in real sandboxes with the
// filter and their cgroups, on slots of the shared monotonic clock. Reported: the raw rate
// (bits/s), the bit error rate after a 16-bit preamble sets the threshold, and the capacity
// of a binary symmetric channel with that error rate (bits/s). KOTHD_TIMING_UNSANDBOXED=1
// runs the same bots without a sandbox, for comparison.
func BenchmarkTimingChannel(b *testing.B) {
	var sb Sandbox = NeedBwrap(b)
	if os.Getenv("KOTHD_TIMING_UNSANDBOXED") != "" {
		sb = Unsandboxed{}
	}
	for _, slot := range []time.Duration{time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond} {
		b.Run(slot.String(), func(b *testing.B) { benchSlotChannel(b, sb, "timing", slot, 128) })
	}
}

// BenchmarkSysinfoChannel is the channel sysinfo.go closes, run as BenchmarkTimingChannel
// is: for a 1 the sender starts 20 processes for part of the slot, the receiver reads the
// change of sysinfo's procs over that part. "kernel" is the sandbox without the sysinfo
// helper (the channel open), "answered" the real one.
func BenchmarkSysinfoChannel(b *testing.B) {
	sb := NeedBwrap(b)
	for _, c := range []struct {
		name string
		sb   *Bwrap
	}{{"kernel", withoutSysinfo(sb)}, {"answered", sb}} {
		b.Run(c.name, func(b *testing.B) { benchSlotChannel(b, c.sb, "sysinfo", 50*time.Millisecond, 128) })
	}
}

// BenchmarkPipeInodeChannel measures another channel that remains: the inode numbers of
// new pipes (and sockets) come from one counter of the whole machine. For a 1 the sender
// makes N pipes; at the end of each slot the receiver makes 1100 and reads how far the
// numbers moved beyond its own.
func BenchmarkPipeInodeChannel(b *testing.B) {
	sb := NeedBwrap(b)
	for _, c := range []struct {
		slot  time.Duration
		pipes int
	}{{20 * time.Millisecond, 2048}, {50 * time.Millisecond, 2048}, {50 * time.Millisecond, 8192}} {
		b.Run(fmt.Sprintf("%v-N%d", c.slot, c.pipes), func(b *testing.B) {
			benchSlotChannel(b, sb, "pipeino", c.slot, 128, strconv.Itoa(c.pipes))
		})
	}
}

// benchSlotChannel runs one of chan.c's slot channels between two sandboxes: nbits random
// bits after a 16-bit preamble of alternating bits, which sets the receiver's threshold.
func benchSlotChannel(b *testing.B, sb Sandbox, channel string, slot time.Duration, nbits int, sendArgs ...string) {
	bin := needChan(b)
	var errs, total int
	for b.Loop() {
		bits := make([]byte, 16+nbits)
		for i := range bits {
			bits[i] = '0' + byte(i&1^1)
			if i >= 16 {
				bits[i] = '0' + byte(rand.IntN(2))
			}
		}
		// Both ends start on the same slot boundary, far enough ahead for two
		// sandboxes to start on a loaded machine.
		us, start := strconv.FormatInt(slot.Microseconds(), 10), strconv.FormatInt(monotonicNow()+int64(3*time.Second), 10)
		recv := startChanB(b, sb, bin, channel, "recv", us, start, strconv.Itoa(len(bits)))
		send := startChanB(b, sb, bin, append([]string{channel, "send", us, start, string(bits)}, sendArgs...)...)
		counts := make([]float64, 0, len(bits))
		for range bits {
			l, err := recv.out.ReadString('\n')
			if err != nil {
				b.Fatalf("receiver: %v", err)
			}
			c, _ := strconv.ParseFloat(strings.TrimSpace(l), 64)
			counts = append(counts, c)
		}
		_ = send.cmd.Wait()
		_ = recv.cmd.Wait()
		var one, zero float64
		for i := range 16 {
			if bits[i] == '1' {
				one += counts[i] / 8
			} else {
				zero += counts[i] / 8
			}
		}
		threshold := (one + zero) / 2
		for i := 16; i < len(bits); i++ {
			got := byte('0')
			if (counts[i] < threshold) == (one < zero) {
				got = '1'
			}
			if got != bits[i] {
				errs++
			}
			total++
		}
	}
	p := float64(errs) / float64(total)
	rate := 1 / slot.Seconds()
	h := 0.0
	if p > 0 && p < 1 {
		h = -p*math.Log2(p) - (1-p)*math.Log2(1-p)
	}
	b.ReportMetric(rate, "raw-bits/s")
	b.ReportMetric(p, "bit-error-rate")
	b.ReportMetric(float64(total-errs), "bits-right")
	b.ReportMetric(float64(total), "bits-sent")
	b.ReportMetric(rate*(1-h), "capacity-bits/s")
}

// monotonicNow is CLOCK_MONOTONIC in nanoseconds, the clock the channel bots share.
func monotonicNow() int64 {
	var ts syscall.Timespec
	_, _, _ = syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 1, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano()
}

// startChanB is startChan for benchmarks: the bot's stdout is read by the caller.
func startChanB(b *testing.B, sb Sandbox, bin string, args ...string) *chanProc {
	b.Helper()
	dir := b.TempDir()
	data, err := os.ReadFile(bin)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "chan"), data, 0o755); err != nil {
		b.Fatal(err)
	}
	proc, err := sb.Command(context.Background(), ProcSpec{Dir: dir, Argv: append([]string{"./chan"}, args...)})
	if err != nil {
		b.Fatal(err)
	}
	cmd := proc.Cmd
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		KillGroup(cmd)
		_ = cmd.Wait()
		proc.Release()
	})
	return &chanProc{cmd: cmd, out: bufio.NewReader(stdout)}
}

// A long-lived bot's memory fault is the host's own sight (engine.Fault.AtLimit) only when
// the kernel killed it for the sandbox's memory; a bot that dies printing MemoryError has
// a memory fault on its word alone. And DataBytes reads what RLIMIT_DATA bounds.
func TestMemoryFaultSeenByTheHost(t *testing.T) {
	sb := NeedBwrap(t)
	if sb.cgroups == nil {
		t.Skip("no cgroups: the host cannot see a kill for memory")
	}
	lim := Limits{MemoryMB: 256, Procs: 8, OpenFiles: 64, OutputBytes: 1 << 20}
	for _, c := range []struct {
		name, work string
		atLimit    bool
	}{
		// Two processes of 150 MB, each within RLIMIT_DATA, together past the cgroup's 256.
		{"killed by the kernel", "import os, time\nos.fork()\na = b'x' * (150 << 20)\ntime.sleep(5)", true},
		{"its own word", "import sys\nprint('MemoryError', file=sys.stderr)\nsys.exit(1)", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			script := "import sys\nsys.stdin.readline()\n" + c.work + "\n"
			p, err := StartLineProc(context.Background(), sb, ProcSpec{Dir: t.TempDir(), Argv: []string{"/usr/bin/python3", "-c", script}, Limits: lim})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			_, f := p.RoundTrip([]byte("go"), 20*time.Second)
			if f == nil || f.Outcome != engine.MemoryLimit || f.AtLimit != c.atLimit {
				t.Fatalf("fault %+v; want a memory fault, AtLimit %v", f, c.atLimit)
			}
		})
	}
	p, err := StartLineProc(context.Background(), sb, ProcSpec{Dir: t.TempDir(), Limits: lim,
		// It holds its memory until its stdin closes: the round trip below sends a line,
		// and a readline would let it exit (and free the 100 MB) while DataBytes reads it,
		// a race the unprivileged sandbox on cgroup v2 lost under emulation.
		Argv: []string{"/usr/bin/python3", "-c", "import sys\na = b'x' * (100 << 20)\nprint('ready', flush=True)\nsys.stdin.read()\n"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, f := p.RoundTrip(nil, 20*time.Second); f != nil {
		t.Fatal(f)
	}
	before := nestedProcesses()
	p.Proc.KillStrays() // finds the bot's pid
	if data, ok := p.DataBytes(); !ok || data < 100<<20 || data > 200<<20 {
		t.Errorf("DataBytes %d MB (%v) for a process holding 100 MB (bot pid %d); processes in namespaces before the strays were killed:\n%s\nafter:\n%s", data>>20, ok, p.botPid(), before, nestedProcesses())
	}
}

// ownSeccompFilters is how many seccomp filters this process runs under (0 unless a
// service manager or a parent installed some).
func ownSeccompFilters(t *testing.T) int {
	t.Helper()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "Seccomp_filters:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				t.Fatalf("/proc/self/status: %q", line)
			}
			return n
		}
	}
	return 0
}

// nestedProcesses lists the processes in a PID namespace below this one (pid, NSpid,
// VmData, command line), for a failure's message.
func nestedProcesses() string {
	var b strings.Builder
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		ns := procStatus(pid, "NSpid")
		if len(strings.Fields(ns)) < 2 {
			continue
		}
		cmd, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		fmt.Fprintf(&b, "  %d NSpid %q VmData %q %.80q\n", pid, ns, procStatus(pid, "VmData"), strings.ReplaceAll(string(cmd), "\x00", " "))
	}
	return b.String()
}
