package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
)

// argvBot writes a bash bot into a fresh directory and returns its spec.
func argvBot(t *testing.T, script string) ProcSpec {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bot.sh"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	return ProcSpec{Dir: dir, Argv: []string{"bash", "bot.sh"}, Limits: Limits{OutputBytes: 64 << 10}}
}

// argvAlive reports whether pid is a live (not zombie) process.
func argvAlive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// argvWaitGone fails the test if pid is still alive after a grace period (the kill is
// asynchronous: the killed process is reaped by whoever inherits it). The grace is long:
// on a loaded machine the reaping can wait seconds for a CPU, and a passing test never
// waits it out.
func argvWaitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		if !argvAlive(pid) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = exec.Command("kill", "-9", strconv.Itoa(pid)).Run()
	t.Fatalf("process %d was left behind", pid)
}

// argvReadPid reads the pid a bot wrote into path. The shell creates the file before it
// writes the number, so a file read too early is empty: wait (bounded) for the number.
func argvReadPid(t *testing.T, path string) int {
	t.Helper()
	pid, err := argvWaitPid(path)
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

func argvWaitPid(path string) (int, error) {
	var last error
	for range 3000 {
		b, err := os.ReadFile(path)
		if err == nil {
			var pid int
			if pid, err = strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				return pid, nil
			}
		}
		last = err
		time.Sleep(10 * time.Millisecond)
	}
	return 0, fmt.Errorf("no pid in %s: %w", path, last)
}

func TestArgvAnswers(t *testing.T) {
	spec := argvBot(t, `
in=$(cat)   # stdin must be empty (and must not block)
printf '\n\t  %s %s %s [%s] %s  \n\n' "$#" "$1" "$3" "$in" "$(basename "$PWD")"
`)
	ans, f := RunArgv(context.Background(), Unsandboxed{}, spec, []string{"0", "1", "a b"}, 5*time.Second)
	if f != nil {
		t.Fatal(f)
	}
	if want := "3 0 a b [] " + filepath.Base(spec.Dir); ans != want {
		t.Fatalf("answer %q, want %q", ans, want)
	}
}

func TestArgvPython(t *testing.T) {
	dir := t.TempDir()
	src := "import sys\nprint(sum(int(a) for a in sys.argv[1:]))\n"
	if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := ProcSpec{Dir: dir, Argv: []string{"/usr/bin/python3", "bot.py"}}
	ans, f := RunArgv(context.Background(), Unsandboxed{}, spec, []string{"40", "2"}, 5*time.Second)
	if f != nil || ans != "42" {
		t.Fatalf("answer %q, fault %v", ans, f)
	}
}

func TestArgvTimeout(t *testing.T) {
	spec := argvBot(t, `
sleep 1000 &
echo $! > child.pid
echo $$ > main.pid
echo partial
sleep 1000
`)
	ans, f := RunArgv(context.Background(), Unsandboxed{}, spec, nil, 2*time.Second)
	if f == nil || f.Outcome != engine.Timeout {
		t.Fatalf("answer %q, fault %v; want a timeout", ans, f)
	}
	argvWaitGone(t, argvReadPid(t, filepath.Join(spec.Dir, "main.pid")))
	argvWaitGone(t, argvReadPid(t, filepath.Join(spec.Dir, "child.pid")))
}

// A bot that answers and exits, leaving a background child, gets its answer and loses the
// child.
func TestArgvBackgroundChild(t *testing.T) {
	spec := argvBot(t, `
sleep 1000 >/dev/null 2>&1 &
echo $! > child.pid
echo 5
`)
	ans, f := RunArgv(context.Background(), Unsandboxed{}, spec, nil, 5*time.Second)
	if f != nil || ans != "5" {
		t.Fatalf("answer %q, fault %v", ans, f)
	}
	argvWaitGone(t, argvReadPid(t, filepath.Join(spec.Dir, "child.pid")))
}

// A child that keeps stdout open must not make the call wait for it.
func TestArgvChildHoldsStdout(t *testing.T) {
	spec := argvBot(t, `
sleep 1000 &
echo $! > child.pid
echo 6
`)
	ans, f := RunArgv(context.Background(), Unsandboxed{}, spec, nil, 5*time.Second)
	if f != nil || ans != "6" {
		t.Fatalf("answer %q, fault %v", ans, f)
	}
	argvWaitGone(t, argvReadPid(t, filepath.Join(spec.Dir, "child.pid")))
}

func TestArgvHugeOutput(t *testing.T) {
	spec := argvBot(t, `echo $$ > main.pid; while :; do echo 123456789; done`)
	spec.Limits.OutputBytes = 4096
	ans, f := RunArgv(context.Background(), Unsandboxed{}, spec, nil, 10*time.Second)
	if f == nil || f.Outcome != engine.OutputLimit || ans != "" {
		t.Fatalf("answer of %d bytes, fault %v; want an output limit", len(ans), f)
	}
	argvWaitGone(t, argvReadPid(t, filepath.Join(spec.Dir, "main.pid")))

	// Exactly at the limit is fine.
	spec = argvBot(t, `head -c 4096 /dev/zero | tr '\0' 7`)
	spec.Limits.OutputBytes = 4096
	ans, f = RunArgv(context.Background(), Unsandboxed{}, spec, nil, 10*time.Second)
	if f != nil || len(ans) != 4096 {
		t.Fatalf("answer of %d bytes, fault %v", len(ans), f)
	}
}

func TestArgvExitStatus(t *testing.T) {
	spec := argvBot(t, `echo 7; echo "it broke" >&2; exit 3`)
	ans, f := RunArgv(context.Background(), Unsandboxed{}, spec, nil, 5*time.Second)
	if f == nil || f.Outcome != engine.Crash || ans != "" {
		t.Fatalf("answer %q, fault %v; want a crash", ans, f)
	}
	if !strings.Contains(f.Detail, "exit status 3") || !strings.Contains(f.Detail, "it broke") {
		t.Fatalf("detail %q lacks the exit status or stderr", f.Detail)
	}

	spec = argvBot(t, `echo 7; kill -SEGV $$`)
	if _, f = RunArgv(context.Background(), Unsandboxed{}, spec, nil, 5*time.Second); f == nil || f.Outcome != engine.Crash {
		t.Fatalf("fault %v; want a crash", f)
	}
	spec = argvBot(t, `kill -KILL $$`)
	if _, f = RunArgv(context.Background(), Unsandboxed{}, spec, nil, 5*time.Second); f == nil || f.Outcome != engine.Killed {
		t.Fatalf("fault %v; want killed", f)
	}
}

func TestArgvCannotStart(t *testing.T) {
	spec := ProcSpec{Dir: t.TempDir(), Argv: []string{"./bot"}}
	_, f := RunArgv(context.Background(), Unsandboxed{}, spec, []string{"1"}, 5*time.Second)
	if f == nil || f.Outcome != engine.Crash {
		t.Fatalf("fault %v; want a crash (the bot's program is missing)", f)
	}
}

type argvBrokenSandbox struct{}

func (argvBrokenSandbox) Name() string { return "broken" }
func (argvBrokenSandbox) Command(context.Context, ProcSpec) (*Process, error) {
	return nil, errors.New("no more namespaces")
}

func TestArgvHostFaults(t *testing.T) {
	spec := argvBot(t, "echo 1")
	if _, f := RunArgv(context.Background(), argvBrokenSandbox{}, spec, nil, time.Second); f == nil || f.Outcome != engine.HostFault {
		t.Fatalf("fault %v; want a host fault", f)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, f := RunArgv(ctx, Unsandboxed{}, spec, nil, time.Second); f == nil || f.Outcome != engine.HostFault {
		t.Fatalf("fault %v; want a host fault for a cancelled run", f)
	}
	// Cancelled while the bot runs.
	spec = argvBot(t, "echo $$ > main.pid; sleep 1000")
	ctx, cancel = context.WithCancel(context.Background())
	go func() {
		// Cancel once the pid is written, not when the file appears: a bot killed between
		// the shell creating the file and writing it leaves an empty file for ever.
		argvWaitPid(filepath.Join(spec.Dir, "main.pid"))
		cancel()
	}()
	if _, f := RunArgv(ctx, Unsandboxed{}, spec, nil, time.Minute); f == nil || f.Outcome != engine.HostFault {
		t.Fatalf("fault %v; want a host fault for a cancelled run", f)
	}
	argvWaitGone(t, argvReadPid(t, filepath.Join(spec.Dir, "main.pid")))
}

func BenchmarkArgvLaunch(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bot.sh"), []byte("echo $1\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	spec := ProcSpec{Dir: dir, Argv: []string{"bash", "bot.sh"}}
	for b.Loop() {
		if _, f := RunArgv(context.Background(), Unsandboxed{}, spec, []string{"1"}, 5*time.Second); f != nil {
			b.Fatal(f)
		}
	}
}

// argvBwrap returns the real sandbox, or skips when this host cannot build one.
func argvBwrap(t testing.TB) Sandbox {
	t.Helper()
	sb, err := NewSandbox("bwrap", slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Skipf("no bwrap sandbox here: %v", err)
	}
	return sb
}

// The argv protocol through bubblewrap: arguments and answer pass intact, and a bot that
// hangs is killed with everything it started.
func TestArgvBwrap(t *testing.T) {
	sb := argvBwrap(t)
	spec := argvBot(t, `printf ' %s %s %s\n' "$#" "$2" "$(cat)"`)
	ans, f := RunArgv(context.Background(), sb, spec, []string{"0", "2"}, 10*time.Second)
	if f != nil || ans != "2 2" {
		t.Fatalf("answer %q, fault %v", ans, f)
	}
	spec = argvBot(t, `sleep 1000 & sleep 1000`)
	_, f = RunArgv(context.Background(), sb, spec, nil, time.Second)
	if f == nil || f.Outcome != engine.Timeout {
		t.Fatalf("fault %v; want a timeout", f)
	}
	spec = argvBot(t, `exit 4`)
	if _, f = RunArgv(context.Background(), sb, spec, nil, 10*time.Second); f == nil || f.Outcome != engine.Crash {
		t.Fatalf("fault %v; want a crash", f)
	}
}

func BenchmarkArgvLaunchBwrap(b *testing.B) {
	sb := argvBwrap(b)
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bot.sh"), []byte("echo $1\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	spec := ProcSpec{Dir: dir, Argv: []string{"bash", "bot.sh"}, Limits: Limits{MemoryMB: 1024, Procs: 64, OpenFiles: 64, OutputBytes: 64 << 10}}
	for b.Loop() {
		if _, f := RunArgv(context.Background(), sb, spec, []string{"1"}, 10*time.Second); f != nil {
			b.Fatal(f)
		}
	}
}
