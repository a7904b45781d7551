package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
)

// Bounded bot directories (botfs.go) under real bwrap: the allowance holds while the bot
// runs, whatever it writes with, and honest bots keep their files.

// diskBot attacks or uses its directory, by the decision's argument, and prints what
// happened as JSON. Every attack ends by holding what it got for a moment, so that the
// host samples the filesystem while it is at its fullest.
const diskBot = `import ctypes, errno, json, os, sys, time
mode = sys.argv[1]
res = {"mode": mode}
def err(e):
    return errno.errorcode.get(e.errno, str(e.errno))
if mode == "fallocate":
    # Files of 8 MiB each, under RLIMIT_FSIZE (16 MiB), until the space runs out: with
    # blocks and size, then with FALLOC_FL_KEEP_SIZE (blocks without size).
    libc = ctypes.CDLL(None, use_errno=True)
    for kind, flags in (("plain", 0), ("keep_size", 1)):
        n = 0
        while True:
            fd = os.open("%s%d" % (kind, n), os.O_CREAT | os.O_WRONLY, 0o644)
            rc = libc.fallocate(fd, flags, ctypes.c_long(0), ctypes.c_long(8 << 20))
            e = ctypes.get_errno()
            os.close(fd)
            if rc != 0:
                res[kind] = errno.errorcode.get(e, str(e))
                break
            n += 1
        res[kind + "_files"] = n
        if kind == "plain":
            time.sleep(0.5)
            for i in range(n + 1):
                os.unlink("plain%d" % i)
    time.sleep(0.5)
elif mode == "fill":
    n = 0
    try:
        while True:
            with open("f%d" % n, "wb") as f:
                f.write(b"x" * (1 << 20))
            n += 1
    except OSError as e:
        res["error"] = err(e)
    res["files"] = n
    time.sleep(1)
elif mode == "empty":
    n = 0
    try:
        while True:
            os.close(os.open("e%d" % n, os.O_CREAT | os.O_WRONLY, 0o644))
            n += 1
    except OSError as e:
        res["error"] = err(e)
    res["files"] = n
    time.sleep(1)
elif mode == "clean":
    for name in os.listdir("."):
        if name not in ("bot.py", "state"):
            os.unlink(name)
elif mode == "keep":
    with open("state", "a") as f:
        f.write("x" * 3000 + "\n")
    res["lines"] = len(open("state").read().splitlines())
print(json.dumps(res))
`

// diskLimits are Bank Heist's and Mafia's configured limits (disk_mb: 16).
var diskLimits = Limits{MemoryMB: 256, Procs: 16, OpenFiles: 64, OutputBytes: 64 << 10, FileSizeMB: 16, DirMB: 16}

// boundBotDir makes a bounded copy of a directory holding bot.py and returns it.
func boundBotDir(t *testing.T, sb *Bwrap, lim Limits) (dir, host string) {
	t.Helper()
	if sb.botfs == nil {
		t.Fatal("this host cannot bound bot directories")
	}
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "bot.py"), []byte(diskBot), 0o644); err != nil {
		t.Fatal(err)
	}
	host = filepath.Join(t.TempDir(), "bot")
	dir, bounded, release, err := BotDir(sb, host, src, lim)
	if err != nil || !bounded {
		t.Fatalf("BotDir: bounded %v, %v", bounded, err)
	}
	t.Cleanup(release)
	return dir, host
}

// sampleDisk samples, from the host, the bounded filesystem and the host directory under
// it until stop closes, and reports the most each held.
func sampleDisk(t *testing.T, dir, host string, stop <-chan struct{}) (done func() (used, inodes, hostBytes int64, samples int)) {
	bd := boundDirOf(dir)
	if bd == nil {
		t.Fatalf("%s is not a bounded directory", dir)
	}
	var mu sync.Mutex
	var used, inodes, hostBytes int64
	var samples int
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for {
			u, n, _, err := bd.usage()
			h := dirBytes(host, 1<<40)
			mu.Lock()
			if err == nil {
				used, inodes, samples = max(used, u), max(inodes, n), samples+1
			}
			hostBytes = max(hostBytes, h)
			mu.Unlock()
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	return func() (int64, int64, int64, int) {
		<-finished
		mu.Lock()
		defer mu.Unlock()
		return used, inodes, hostBytes, samples
	}
}

// TestBotDirHeldDuringDecision: under disk_mb 16, a Bank Heist-style bot (one process per
// decision, through its launcher) that fallocates 8 MiB files (with and without
// FALLOC_FL_KEEP_SIZE, each under RLIMIT_FSIZE), writes 1 MiB files until it cannot, or creates empty files until
// it cannot, gets ENOSPC inside the sandbox; sampled from the host while it runs, its
// filesystem never holds more than 16 MiB or its 4,096 inodes, and nothing reaches the
// host's disk under it. A decision that ends with the directory full is the bot's output
// limit fault, never a host fault; once the bot deletes its files it plays on normally.
func TestBotDirHeldDuringDecision(t *testing.T) {
	sb := NeedBwrap(t)
	dir, host := boundBotDir(t, sb, diskLimits)
	l := NewLauncher(sb, ProcSpec{Dir: dir, Argv: []string{"/usr/bin/python3", "bot.py"}, Limits: diskLimits})
	defer l.Close()
	const allowance = 16 << 20
	for _, c := range []struct {
		mode  string
		fault engine.Outcome // "" for none
		check func(map[string]any) bool
	}{
		{"fallocate", "", func(r map[string]any) bool {
			return r["plain"] == "ENOSPC" && r["keep_size"] == "ENOSPC" && r["plain_files"].(float64) < 2 && r["keep_size_files"].(float64) < 2
		}},
		{"clean", "", nil},
		{"fill", engine.OutputLimit, func(r map[string]any) bool { return r["error"] == "ENOSPC" && r["files"].(float64) < 16 }},
		{"clean", "", nil},
		{"empty", engine.OutputLimit, func(r map[string]any) bool { return r["error"] == "ENOSPC" && r["files"].(float64) < 4096 }},
		{"clean", "", nil},
		{"keep", "", nil},
	} {
		stop := make(chan struct{})
		done := sampleDisk(t, dir, host, stop)
		r := l.Launch(context.Background(), Job{Args: []string{c.mode}, Timeout: time.Minute})
		close(stop)
		used, inodes, hostBytes, samples := done()
		t.Logf("%-9s %s; fault %v; at most %d KiB and %d inodes in use (%d samples); host directory %d B",
			c.mode, strings.TrimSpace(r.Stdout), r.Fault, used>>10, inodes, samples, hostBytes)
		if used > allowance || inodes > allowance/inodeBytes {
			t.Errorf("%s: the bot's filesystem held %d bytes and %d inodes, over the allowance", c.mode, used, inodes)
		}
		if hostBytes > inodeBytes {
			t.Errorf("%s: %d bytes reached the host directory under the mount", c.mode, hostBytes)
		}
		if samples == 0 {
			t.Errorf("%s: no sample was taken while the bot ran", c.mode)
		}
		var got engine.Outcome
		if r.Fault != nil {
			got = r.Fault.Outcome
		}
		if got != c.fault {
			t.Errorf("%s: fault %v, want outcome %q", c.mode, r.Fault, c.fault)
		}
		var rep map[string]any
		if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
			t.Fatalf("%s: the bot's report %q: %v (stderr %s)", c.mode, r.Stdout, err, r.Stderr)
		}
		if c.check != nil && !c.check(rep) {
			t.Errorf("%s: the bot did not see ENOSPC where the allowance ends: %v", c.mode, rep)
		}
	}
}

// TestBotDirKeepsFiles: an honest bot's few KB stay across decisions and across sandboxes
// (a launcher restarted, a second launcher), and the daemon reads them where it wrote
// them; releasing the directory unmounts it.
func TestBotDirKeepsFiles(t *testing.T) {
	sb := NeedBwrap(t)
	dir, _ := boundBotDir(t, sb, diskLimits)
	spec := ProcSpec{Dir: dir, Argv: []string{"/usr/bin/python3", "bot.py"}, Limits: diskLimits}
	for i := 1; i <= 3; i++ {
		l := NewLauncher(sb, spec) // a new sandbox each time
		out, f := l.Run(context.Background(), []string{"keep"}, time.Minute)
		l.Close()
		if f != nil || !strings.Contains(out, `"lines": `+string(rune('0'+i))) {
			t.Fatalf("decision %d in a new sandbox: %q %v", i, out, f)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "state"))
	if err != nil || strings.Count(string(data), "\n") != 3 {
		t.Fatalf("the daemon reads the bot's state: %d lines, %v", strings.Count(string(data), "\n"), err)
	}
}

// TestBotDirRelease: a released directory is unmounted in the holder's namespace, and
// what the bot wrote is gone with it.
func TestBotDirRelease(t *testing.T) {
	sb := NeedBwrap(t)
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "bot.py"), []byte(diskBot), 0o644); err != nil {
		t.Fatal(err)
	}
	host := filepath.Join(t.TempDir(), "bot")
	dir, _, release, err := BotDir(sb, host, src, diskLimits)
	if err != nil {
		t.Fatal(err)
	}
	bd := boundDirOf(dir)
	mounts := func() string {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/mountinfo", bd.holder.cmd.Process.Pid))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	if !strings.Contains(mounts(), " "+host+" ") {
		t.Fatalf("%s is not mounted in the holder's namespace", host)
	}
	release()
	if strings.Contains(mounts(), " "+host+" ") {
		t.Errorf("%s is still mounted after release", host)
	}
	if boundDirOf(dir) != nil {
		t.Error("the released directory is still registered")
	}
	if _, err := os.Stat(filepath.Join(host, "bot.py")); err == nil {
		t.Error("the bot's files reached the host directory")
	}
}

// TestBotDirUnsandboxed: without bwrap there is nothing to bound with; BotDir makes a
// plain copy and the allowance is checked after the decision, as before.
func TestBotDirUnsandboxed(t *testing.T) {
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "bot.py"), []byte(diskBot), 0o644); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "bot")
	dir, bounded, release, err := BotDir(Unsandboxed{}, dst, src, diskLimits)
	if err != nil || bounded || dir != dst {
		t.Fatalf("BotDir without a sandbox: %q bounded %v, %v", dir, bounded, err)
	}
	release()
	if _, err := os.Stat(filepath.Join(dst, "bot.py")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dst, "big"), make([]byte, 17<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	if f := overDisk(ProcSpec{Dir: dst, Limits: diskLimits}, nil); f == nil || f.Outcome != engine.OutputLimit {
		t.Errorf("17 MiB in a plain 16 MB directory: %v", f)
	}
}

// TestBotDirUnprivileged: the daemon run unprivileged (as in production: systemd
// DynamicUser) bounds directories too, through a holder in a user namespace of its own.
// Run as root, the test runs itself again as uid 65534 (without cgroups, which that user
// cannot make on a host whose cgroup tree is root's).
func TestBotDirUnprivileged(t *testing.T) {
	if os.Getenv("KOTHD_BOTFS_CHILD") == "1" {
		sb, err := NewSandboxCgroups("bwrap", CgroupsOff, nil)
		if err != nil {
			t.Fatal(err)
		}
		b := sb.(*Bwrap)
		if b.root || b.botfs == nil {
			t.Fatalf("root %v, bounded directories %v", b.root, b.botfs != nil)
		}
		dir, host := boundBotDir(t, b, diskLimits)
		l := NewLauncher(sb, ProcSpec{Dir: dir, Argv: []string{"/usr/bin/python3", "bot.py"}, Limits: diskLimits})
		defer l.Close()
		for _, mode := range []string{"keep", "fill", "clean", "fallocate", "keep"} {
			stop := make(chan struct{})
			done := sampleDisk(t, dir, host, stop)
			r := l.Launch(context.Background(), Job{Args: []string{mode}, Timeout: time.Minute})
			close(stop)
			used, _, hostBytes, _ := done()
			t.Logf("%-9s %s; fault %v; at most %d KiB in use; host directory %d B", mode, strings.TrimSpace(r.Stdout), r.Fault, used>>10, hostBytes)
			if used > 16<<20 || hostBytes > inodeBytes {
				t.Errorf("%s: %d bytes in the bot's filesystem, %d on the host's", mode, used, hostBytes)
			}
			switch mode {
			case "fill":
				if !strings.Contains(r.Stdout, `"error": "ENOSPC"`) || r.Fault == nil || r.Fault.Outcome != engine.OutputLimit {
					t.Errorf("fill: %s %v", r.Stdout, r.Fault)
				}
			case "fallocate":
				if strings.Count(r.Stdout, `"ENOSPC"`) != 2 {
					t.Errorf("fallocate: %s", r.Stdout)
				}
			default:
				if r.Fault != nil {
					t.Errorf("%s: %v", mode, r.Fault)
				}
			}
		}
		if data, err := os.ReadFile(filepath.Join(dir, "state")); err != nil || strings.Count(string(data), "\n") != 2 {
			t.Errorf("the bot's state across decisions: %d lines, %v", strings.Count(string(data), "\n"), err)
		}
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("already unprivileged: the other TestBotDir tests cover this")
	}
	NeedBwrap(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tmp, err := os.MkdirTemp("", "kothd-botfs-child-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	child := filepath.Join(tmp, "runner.test")
	if err := os.WriteFile(child, data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(child, "-test.run", "^TestBotDirUnprivileged$", "-test.v", "-test.count", "1")
	cmd.Dir = tmp
	cmd.Env = []string{"KOTHD_BOTFS_CHILD=1", "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + tmp, "TMPDIR=/tmp"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	t.Logf("as uid 65534:\n%s", out)
	if err != nil || !strings.Contains(string(out), "--- PASS: TestBotDirUnprivileged") {
		t.Fatalf("unprivileged run: %v", err)
	}
}

// TestBotDirThroughSymlink: a scratch space reached through an absolute symbolic link (as
// systemd's StateDirectory is under DynamicUser) still puts the files on the bounded
// filesystem, not on the host's disk beneath it.
func TestBotDirThroughSymlink(t *testing.T) {
	sb := NeedBwrap(t)
	base := t.TempDir()
	real := filepath.Join(base, "private", "data")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "data")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	dir, bounded, release, err := BotDir(sb, filepath.Join(link, "bot"), src, diskLimits)
	if err != nil || !bounded {
		t.Fatalf("BotDir: bounded %v, %v", bounded, err)
	}
	defer release()
	if err := os.WriteFile(filepath.Join(dir, "state"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil || st.Type != 0x01021994 { // TMPFS_MAGIC
		t.Errorf("%s is not on a tmpfs (type %#x, %v)", dir, st.Type, err)
	}
	if _, err := os.Stat(filepath.Join(real, "bot", "state")); err == nil {
		t.Error("the file reached the host's disk under the mount")
	}
}

// TestBotDirHolderDied: if the mount holder dies (an administrator's kill, the OOM
// killer), the bots' directories are gone: every later decision is a host fault, never
// the bot's, and the next directory made gets a new holder.
func TestBotDirHolderDied(t *testing.T) {
	NeedBwrap(t)
	sb, err := NewSandbox("bwrap", slog.New(slog.NewTextHandler(io.Discard, nil))) // a holder of its own: the others' directories stay
	if err != nil {
		t.Fatal(err)
	}
	b := sb.(*Bwrap)
	dir, _ := boundBotDir(t, b, diskLimits)
	spec := ProcSpec{Dir: dir, Argv: []string{"/usr/bin/python3", "bot.py"}, Limits: diskLimits}
	running := NewLauncher(sb, spec)
	defer running.Close()
	if _, f := running.Run(context.Background(), []string{"keep"}, time.Minute); f != nil {
		t.Fatal(f)
	}
	old := boundDirOf(dir).holder
	_ = old.cmd.Process.Kill()
	for i := 0; i < 100 && old.alive(); i++ {
		time.Sleep(20 * time.Millisecond)
	}
	fresh := NewLauncher(sb, spec)
	defer fresh.Close()
	for name, l := range map[string]*Launcher{"running launcher": running, "new launcher": fresh} {
		if _, f := l.Run(context.Background(), []string{"keep"}, time.Minute); f == nil || f.Outcome != engine.HostFault {
			t.Errorf("%s after the holder died: %v, want a host fault", name, f)
		}
	}
	if dir2, _ := boundBotDir(t, b, diskLimits); boundDirOf(dir2).holder == old {
		t.Error("a new directory was given to the dead holder")
	}
}
