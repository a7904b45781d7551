package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
)

func TestNewSandboxKinds(t *testing.T) {
	var logged bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logged, nil))
	sb, err := NewSandbox("none", log)
	if err != nil || sb.Name() != "none" {
		t.Fatalf("none: %v, %v", sb, err)
	}
	if !strings.Contains(logged.String(), "level=ERROR") || !strings.Contains(logged.String(), "SANDBOX DISABLED") {
		t.Errorf("sandbox: none was not announced loudly: %q", logged.String())
	}
	if _, err := NewSandbox("chroot", log); err == nil || !strings.Contains(err.Error(), "chroot") {
		t.Errorf("unknown kind: %v", err)
	}
	if b := NeedBwrap(t); b.Name() != "bwrap" {
		t.Errorf("bwrap sandbox named %q", b.Name())
	}
}

// runIn runs a shell script in a fresh bot directory under sb and returns its output.
func runIn(t *testing.T, sb Sandbox, dir string, lim Limits, script string, args ...string) (string, error) {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	proc, err := sb.Command(context.Background(), ProcSpec{Dir: dir, Argv: append([]string{"/bin/sh", "-c", script, "sh"}, args...), Limits: lim})
	if err != nil {
		t.Fatal(err)
	}
	cmd := proc.Cmd
	defer proc.Release()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 5 * time.Second
	err = cmd.Run()
	return out.String(), err
}

func TestBwrapView(t *testing.T) {
	sb := NeedBwrap(t)
	t.Setenv("GITHUB_TOKEN", "ghp_viewtest")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mine.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runIn(t, sb, dir, Limits{}, `
		echo "cwd=$(pwd) uid=$(id -u)"; env | sort; cat mine.txt; echo new >new.txt && echo wrote-own
		touch /tmp/x 2>/dev/null || echo tmp-ro; touch "$TMPDIR/t" && echo wrote-tmpdir; touch /x 2>/dev/null || echo root-ro; touch /usr/x 2>/dev/null || echo usr-ro
		ls / | tr '\n' ' '; echo; ls -a /root /root/.pyenv | tr '\n' ' '; echo
		cat /proc/1/environ 2>/dev/null | tr '\0' '\n' | grep -c GITHUB_TOKEN; hostname`)
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, want := range []string{"cwd=/bot uid=", "HOME=/bot", "mine", "wrote-own", "tmp-ro", "wrote-tmpdir", "root-ro", "usr-ro", "sandbox"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "uid=0\n") || strings.Contains(out, "ghp_viewtest") {
		t.Errorf("bot runs as root or sees the token:\n%s", out)
	}
	for _, hidden := range []string{"work", "home", "var", "srv", "opt", "shims", ".pyenv-version"} {
		for _, f := range strings.Fields(out) {
			if f == hidden {
				t.Errorf("%s is visible in the sandbox:\n%s", hidden, out)
			}
		}
	}
	var env []string
	for _, l := range strings.Split(out, "\n") {
		if k, _, ok := strings.Cut(l, "="); ok && !strings.Contains(k, " ") {
			env = append(env, k)
		}
	}
	allowed := []string{"PATH", "HOME", "TMPDIR", "LANG", "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "PWD", "SHLVL", "_", "cwd"}
	for _, k := range env {
		if !slices.Contains(allowed, k) {
			t.Errorf("unexpected variable %s in the sandbox", k)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "new.txt")); err != nil || string(b) != "new\n" {
		t.Errorf("the bot's write to its own directory: %q, %v", b, err)
	}
}

func TestBwrapHidesOptionsAndEnvironmentFromProc(t *testing.T) {
	sb := NeedBwrap(t)
	t.Setenv("SE_API_KEY", "sekey-proctest")
	dir := t.TempDir()
	marker := fmt.Sprintf("424242%d", os.Getpid()%10000)
	proc, err := sb.Command(context.Background(), ProcSpec{Dir: dir, Argv: []string{"sleep", marker}})
	if err != nil {
		t.Fatal(err)
	}
	cmd := proc.Cmd
	defer proc.Release()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { KillGroup(cmd); _ = cmd.Wait(); waitNoLeftovers(t, marker) }()
	// Every process of the sandbox, as the host sees it: bwrap, its init, the bot.
	// The chain execs step by step (bwrap, setpriv, unshare, prlimit, the bot), so wait on
	// one snapshot that holds all three, the bot itself among them (generously: a loaded
	// machine is slow to start them).
	deadline := time.Now().Add(30 * time.Second)
	botRunning := func(procs map[int]string) bool {
		for _, c := range procs {
			if strings.HasPrefix(c, "sleep ") {
				return true
			}
		}
		return false
	}
	procs := processesWith(marker)
	for (len(procs) < 3 || !botRunning(procs)) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		procs = processesWith(marker)
	}
	if len(procs) < 3 {
		t.Fatalf("sandbox processes: %v", procs)
	}
	for pid, cmdline := range procs {
		env, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if bytes.Contains(env, []byte("sekey-proctest")) {
			t.Errorf("process %d (%s) holds the daemon's environment", pid, cmdline)
		}
		if strings.Contains(cmdline, dir) {
			t.Errorf("process %d shows the host path of the bot's directory: %s", pid, cmdline)
		}
	}
}

func TestBwrapLimitsApplied(t *testing.T) {
	sb := NeedBwrap(t)
	out, err := runIn(t, sb, "", Limits{CPUTime: 1500 * time.Millisecond, MemoryMB: 100, Procs: 7, OpenFiles: 33, FileSizeMB: 3}, "cat /proc/self/limits")
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, want := range []string{
		`Max cpu time\s+2\s+3\s+seconds`,
		`Max data size\s+104857600\s+104857600\s+bytes`,
		`Max processes\s+7\s+7\s+processes`,
		`Max open files\s+33\s+33\s+files`,
		`Max file size\s+3145728\s+3145728\s+bytes`,
		`Max core file size\s+0\s+0\s+bytes`,
	} {
		if !regexpMatch(want, out) {
			t.Errorf("limits lack %q:\n%s", want, out)
		}
	}
	// Zero means the sandbox's defaults, never unlimited.
	out, err = runIn(t, sb, "", Limits{}, "cat /proc/self/limits")
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, want := range []string{fmt.Sprintf(`Max processes\s+%d\s`, DefaultProcs), fmt.Sprintf(`Max data size\s+%d\s`, DefaultMemoryMB<<20)} {
		if !regexpMatch(want, out) {
			t.Errorf("default limits lack %q:\n%s", want, out)
		}
	}
}

// TestBwrapProcessLimitIsPerSandbox: one bot at its process limit must not stop another
// from starting processes (the kernel counts per user namespace and uid).
func TestBwrapProcessLimitIsPerSandbox(t *testing.T) {
	sb := NeedBwrap(t)
	marker := fmt.Sprintf("515151%d", os.Getpid()%10000)
	fill := "import subprocess, sys, time\nkids = []\ntry:\n    while True:\n        kids.append(subprocess.Popen(['sleep', sys.argv[1]]))\n" +
		"except OSError:\n    pass\nprint('full', len(kids), flush=True)\ntime.sleep(1000)\n"
	hogP, err := sb.Command(context.Background(), ProcSpec{Dir: t.TempDir(), Limits: Limits{Procs: 6},
		Argv: []string{"/usr/bin/python3", "-c", fill, marker}})
	if err != nil {
		t.Fatal(err)
	}
	hog := hogP.Cmd
	defer hogP.Release()
	hogOut := NewTailBuffer(4096)
	hog.Stdout, hog.Stderr = hogOut, hogOut
	if err := hog.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { KillGroup(hog); _ = hog.Wait(); waitNoLeftovers(t, marker) }()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(hogOut.String(), "full") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	// Six processes: the bot and five children (and bwrap's init too when the daemon is
	// not root and the init shares the bot's user namespace).
	if !regexpMatch(`full [45]\n`, hogOut.String()) {
		t.Fatalf("the first sandbox did not reach its limit of 6 processes: %q", hogOut.String())
	}
	out, err := runIn(t, sb, "", Limits{Procs: 6}, `for i in 1 2 3 4; do true & done; wait; echo ok`)
	if err != nil || !strings.Contains(out, "ok") {
		t.Errorf("a second sandbox could not fork while the first is at its limit: %v: %s", err, out)
	}
}

func TestExitOutcome(t *testing.T) {
	cases := []struct {
		script string
		want   engine.Outcome
	}{
		{"kill -XCPU $$", engine.Timeout},
		{"kill -XFSZ $$", engine.OutputLimit},
		{"kill -KILL $$", engine.Killed},
		{"kill -SEGV $$", engine.Crash},
		{"exit 152", engine.Timeout}, // bwrap's report of a SIGXCPU death
		{"exit 153", engine.OutputLimit},
		{"exit 137", engine.Killed},
		{"exit 1", engine.Crash},
		{"exit 255", engine.Crash},
	}
	for _, c := range cases {
		err := exec.Command("/bin/sh", "-c", c.script).Run()
		if got := exitOutcome(err); got != c.want {
			t.Errorf("%s: %q, want %q", c.script, got, c.want)
		}
	}
	if got := exitOutcome(errors.New("not an exit")); got != engine.Crash {
		t.Errorf("other error: %q", got)
	}
	err := exec.Command("/bin/sh", "-c", "exit 1").Run()
	if got := classifyExit(nil, err, "Traceback (most recent call last):\n  ...\nMemoryError\n"); got != engine.MemoryLimit {
		t.Errorf("MemoryError: %q", got)
	}
	if got := classifyExit(nil, err, "terminate called after throwing an instance of 'std::bad_alloc'"); got != engine.MemoryLimit {
		t.Errorf("bad_alloc: %q", got)
	}
	if got := classifyExit(nil, err, "ZeroDivisionError: division by zero"); got != engine.Crash {
		t.Errorf("plain crash: %q", got)
	}
}

func TestChownTree(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chownTree is used only by a root daemon")
	}
	root := t.TempDir()
	dir := filepath.Join(root, "bot")
	outside := filepath.Join(root, "outside.txt")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "sub", "deeper"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "sub", "deeper", "f"), nil, 0o644))
	must(os.WriteFile(outside, nil, 0o644))
	must(os.Symlink(outside, filepath.Join(dir, "link")))
	must(os.Symlink(root, filepath.Join(dir, "sub", "dirlink")))
	must(os.WriteFile(filepath.Join(dir, "shared"), nil, 0o644))
	must(os.Link(filepath.Join(dir, "shared"), filepath.Join(root, "shared-elsewhere")))
	must(os.Mkdir(filepath.Join(dir, "bots-own"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "bots-own", "cache"), nil, 0o644))
	must(os.Chown(filepath.Join(dir, "bots-own"), 65534, 65534))
	must(chownTree(dir, 65534, 65534))

	owner := func(p string) int {
		var st syscall.Stat_t
		must(syscall.Lstat(p, &st))
		return int(st.Uid)
	}
	for _, p := range []string{dir, filepath.Join(dir, "sub"), filepath.Join(dir, "sub", "deeper", "f"), filepath.Join(dir, "link"), filepath.Join(dir, "sub", "dirlink")} {
		if owner(p) != 65534 {
			t.Errorf("%s not handed over", p)
		}
	}
	// A directory the bot already owns is not walked: nothing of the runner's is there.
	for _, p := range []string{outside, root, filepath.Join(dir, "shared"), filepath.Join(dir, "bots-own", "cache")} {
		if owner(p) != 0 {
			t.Errorf("%s changed owner through a link", p)
		}
	}
}

// TestBwrapInterpreters runs the interpreters config.yaml names, with default limits.
func TestBwrapInterpreters(t *testing.T) {
	sb := NeedBwrap(t)
	for _, c := range []struct{ argv, want string }{
		{"/usr/bin/python3 -c import\\ numpy;print(numpy.__name__)", "numpy"},
		{"/root/.pyenv/versions/2.7.18/bin/python2.7 -c print\\ 'py'+str(2)", "py2"},
		{"node -e console.log('node')", "node"},
		{"java -version", "version"},
	} {
		argv := strings.Fields(strings.ReplaceAll(c.argv, "\\ ", "\x00"))
		for i := range argv {
			argv[i] = strings.ReplaceAll(argv[i], "\x00", " ")
		}
		if _, err := exec.LookPath(argv[0]); err != nil {
			t.Logf("%s not installed here", argv[0])
			continue
		}
		proc, err := sb.Command(context.Background(), ProcSpec{Dir: t.TempDir(), Argv: argv, Limits: Limits{Procs: 64}})
		if err != nil {
			t.Fatal(err)
		}
		cmd := proc.Cmd
		defer proc.Release()
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), c.want) {
			t.Errorf("%s: %v: %s", c.argv, err, out)
		}
	}
}

// TestBwrapInterpreterPrefix: an interpreter named by an absolute path outside the
// default binds gets its installation prefix bound.
func TestBwrapInterpreterPrefix(t *testing.T) {
	sb := NeedBwrap(t)
	prefix := filepath.Join(t.TempDir(), "opt", "lang")
	if err := os.MkdirAll(filepath.Join(prefix, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\ntouch \"$TMPDIR/y\" && echo interpreted \"$@\"\n"
	if err := os.WriteFile(filepath.Join(prefix, "bin", "interp"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	proc, err := sb.Command(context.Background(), ProcSpec{Dir: t.TempDir(), Argv: []string{filepath.Join(prefix, "bin", "interp"), "x"}})
	if err != nil {
		t.Fatal(err)
	}
	cmd := proc.Cmd
	defer proc.Release()
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "interpreted x" {
		t.Errorf("%v: %s", err, out)
	}
	// A prefix holding the bot's directory (the data directory) is never bound.
	botDir := filepath.Join(prefix, "bots", "b")
	if err := os.MkdirAll(botDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if opts, _ := sb.args(botDir, ProcSpec{Dir: botDir, Argv: []string{filepath.Join(prefix, "bin", "interp")}}, 0, 0); slices.Contains(opts, prefix) {
		t.Errorf("prefix %s of the bot's own directory would be bound: %v", prefix, opts)
	}
	if p := sb.interpreterPrefix("/opt/interp"); p != "" {
		t.Errorf("a one-level prefix %s would be bound", p)
	}
}

func regexpMatch(pattern, s string) bool {
	return regexp.MustCompile(pattern).MatchString(s)
}

// TestWriteBotFile: the runner's writes into a bot's directory never go through what the
// bot put there.
func TestWriteBotFile(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "bot")
	outside := filepath.Join(root, "passwd")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "fifo-dir"), 0o755))
	must(os.WriteFile(outside, []byte("root:x:0:0\n"), 0o600))
	must(os.Symlink(outside, filepath.Join(dir, "bot.py")))                  // a link to a host file
	must(os.Symlink(root, filepath.Join(dir, ".harness")))                   // a link in place of a directory
	must(os.Link(outside, filepath.Join(dir, "hard")))                       // a hard link
	must(os.MkdirAll(filepath.Join(dir, "run", "deep"), 0o755))              // a directory in place of a file
	must(syscall.Mkfifo(filepath.Join(dir, "fifo-dir", "to_server"), 0o644)) // a FIFO that would block
	for _, c := range []struct{ name, data string }{
		{"bot.py", "print(1)\n"}, {".harness/pyclass.py", "# harness\n"}, {"hard", "x\n"}, {"run", "#!/bin/sh\n"},
		{"fifo-dir/to_server", ""}, {"new/dir/file", "n\n"},
	} {
		must(WriteBotFile(dir, c.name, []byte(c.data), 0o755))
		p := filepath.Join(dir, c.name)
		st, err := os.Lstat(p)
		if err != nil || !st.Mode().IsRegular() || st.Mode().Perm() != 0o755 {
			t.Errorf("%s: %v, %v", c.name, st.Mode(), err)
		}
		if b, _ := os.ReadFile(p); string(b) != c.data {
			t.Errorf("%s holds %q", c.name, b)
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "root:x:0:0\n" {
		t.Errorf("the host file was written through a link: %q", b)
	}
	if st, _ := os.Stat(outside); st.Mode().Perm() != 0o600 {
		t.Errorf("the host file was chmodded through a link: %v", st.Mode())
	}
	if _, err := os.Stat(filepath.Join(root, "pyclass.py")); err == nil {
		t.Error("a file was written through a directory link")
	}
	for _, bad := range []string{"../escape", "/etc/passwd", ".", ""} {
		if err := WriteBotFile(dir, bad, nil, 0o644); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
