package sandbox

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
)

// launcherSandboxes are the sandboxes every launcher test runs under: none, and the real
// bwrap (required, as in the hostile suite, unless KOTHD_NO_BWRAP=1).
func launcherSandboxes(t *testing.T) map[string]Sandbox {
	t.Helper()
	sbs := map[string]Sandbox{"none": Unsandboxed{}}
	if os.Getenv("KOTHD_NO_BWRAP") != "1" {
		sbs["bwrap"] = NeedBwrap(t)
	}
	return sbs
}

// newTestLauncher returns a launcher for spec, closed when the test ends.
func newTestLauncher(t testing.TB, sb Sandbox, spec ProcSpec) *Launcher {
	t.Helper()
	l := NewLauncher(sb, spec)
	t.Cleanup(l.Close)
	return l
}

// launcherMarker is a number put in the command line of the processes a test's bots
// start, so that waitNoLeftovers can find any that survive.
func launcherMarker() string { return strconv.Itoa(424240000 + rand.IntN(10000)) }

func outcome(f *engine.Fault) engine.Outcome {
	if f == nil {
		return engine.OK
	}
	return f.Outcome
}

func TestLauncherAnswers(t *testing.T) {
	for name, sb := range launcherSandboxes(t) {
		t.Run(name, func(t *testing.T) {
			spec := argvBot(t, `
in=$(cat)   # stdin is empty (and does not block)
n=$(cat memory 2>/dev/null | wc -l)
printf '\n\t  %s %s %s [%s] %s %s \n\n' "$#" "$1" "$3" "$in" "$(basename "$PWD")" "$n"
echo "$1" >> memory
`)
			l := newTestLauncher(t, sb, spec)
			dir := filepath.Base(spec.Dir)
			if name == "bwrap" {
				dir = filepath.Base(SandboxDir)
			}
			for i := range 3 {
				ans, f := l.Run(context.Background(), []string{strconv.Itoa(i), "1", "a b"}, 10*time.Second)
				want := fmt.Sprintf("3 %d a b [] %s %d", i, dir, i)
				if f != nil || ans != want {
					t.Fatalf("decision %d: answer %q, fault %v; want %q", i, ans, f, want)
				}
			}
			if n := l.Started(); n != 1 {
				t.Fatalf("%d launcher processes started for 3 sequential decisions, want 1", n)
			}
			// Where bwrap works, a nested user namespace does too: the process-group
			// fallback there would be a silent loss of isolation.
			if iso := l.idle[0].isolation; iso != "pidns" && name == "bwrap" {
				t.Fatalf("launcher isolation %q, want pidns", iso)
			}
		})
	}
}

func TestLauncherPythonStdinAndDiscard(t *testing.T) {
	for name, sb := range launcherSandboxes(t) {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			src := "import sys\ndata = sys.stdin.read()\nprint(sum(int(a) for a in sys.argv[1:]), len(data), data[:5])\n" +
				"sys.stderr.write('to stderr\\n')\nopen('seen', 'w').write(data)\n"
			if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			l := newTestLauncher(t, sb, ProcSpec{Dir: dir, Argv: []string{"/usr/bin/python3", "bot.py"}})
			ans, f := l.Run(context.Background(), []string{"40", "2"}, 10*time.Second)
			if f != nil || ans != "42 0" {
				t.Fatalf("answer %q, fault %v", ans, f)
			}
			in := []byte(strings.Repeat("hello\x00\n", 20000)) // 140 KB, more than a pipe holds
			r := l.Launch(context.Background(), Job{Args: []string{"1"}, Stdin: in, Timeout: 10 * time.Second})
			if r.Fault != nil || r.Exit != 0 || r.Stdout != "1 140000 hello\n" || r.Stderr != "to stderr\n" {
				t.Fatalf("with stdin: %+v", r)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, "seen")); string(got) != string(in) {
				t.Fatalf("the bot read %d bytes of stdin, want %d", len(got), len(in))
			}
			r = l.Launch(context.Background(), Job{Args: []string{"1"}, DiscardStdout: true, Timeout: 10 * time.Second})
			if r.Fault != nil || r.Stdout != "" || r.Stderr != "to stderr\n" {
				t.Fatalf("discarding stdout: %+v", r)
			}
		})
	}
}

// A decision that times out is killed with everything it started, including a child that
// left its session; the same launcher serves the next decision.
func TestLauncherTimeoutKillsEverything(t *testing.T) {
	for name, sb := range launcherSandboxes(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := launcherMarker()
			spec := argvBot(t, `
sleep `+m+`.1 &
setsid sleep `+m+`.2 </dev/null >/dev/null 2>&1 &
echo partial; echo "going to sleep" >&2
sleep `+m+`.3
`)
			l := newTestLauncher(t, sb, spec)
			ans, f := l.Run(context.Background(), nil, time.Second)
			if f == nil || f.Outcome != engine.Timeout || ans != "" {
				t.Fatalf("answer %q, fault %v; want a timeout", ans, f)
			}
			if !strings.Contains(f.Detail, "going to sleep") {
				t.Errorf("detail %q lacks the stderr tail", f.Detail)
			}
			if left := processesWith(m); len(left) > 0 {
				t.Errorf("processes left once the decision was reported: %v", left)
				waitNoLeftovers(t, m)
			}
			if err := os.WriteFile(filepath.Join(spec.Dir, "bot.sh"), []byte("echo next"), 0o644); err != nil {
				t.Fatal(err)
			}
			if ans, f = l.Run(context.Background(), nil, 10*time.Second); f != nil || ans != "next" || l.Started() != 1 {
				t.Fatalf("next decision: answer %q, fault %v, %d launchers started", ans, f, l.Started())
			}
		})
	}
}

// A bot that answers and leaves children behind (in its group, in a new session, double
// forked) gets its answer; the children are gone when the call returns.
func TestLauncherBackgroundChildren(t *testing.T) {
	for name, sb := range launcherSandboxes(t) {
		t.Run(name, func(t *testing.T) {
			m := launcherMarker()
			spec := argvBot(t, `
sleep `+m+`.1 &
setsid sleep `+m+`.2 </dev/null >/dev/null 2>&1 &
(sleep `+m+`.3 </dev/null >/dev/null 2>&1 &)
nohup sleep `+m+`.4 </dev/null >/dev/null 2>&1 &
echo 5
`)
			l := newTestLauncher(t, sb, spec)
			ans, f := l.Run(context.Background(), nil, 10*time.Second)
			if f != nil || ans != "5" {
				t.Fatalf("answer %q, fault %v", ans, f)
			}
			if left := processesWith(m); len(left) > 0 {
				t.Errorf("processes left once the decision was reported: %v", left)
				waitNoLeftovers(t, m)
			}
		})
	}
}

func TestLauncherHugeOutput(t *testing.T) {
	for name, sb := range launcherSandboxes(t) {
		t.Run(name, func(t *testing.T) {
			spec := argvBot(t, `while :; do echo 123456789; done`)
			spec.Limits.OutputBytes = 4096
			l := newTestLauncher(t, sb, spec)
			ans, f := l.Run(context.Background(), nil, 10*time.Second)
			if f == nil || f.Outcome != engine.OutputLimit || ans != "" {
				t.Fatalf("answer of %d bytes, fault %v; want an output limit", len(ans), f)
			}
			// Exactly at the limit is fine, through the same launcher.
			if err := os.WriteFile(filepath.Join(spec.Dir, "bot.sh"), []byte(`head -c 4096 /dev/zero | tr '\0' 7`), 0o644); err != nil {
				t.Fatal(err)
			}
			ans, f = l.Run(context.Background(), nil, 10*time.Second)
			if f != nil || len(ans) != 4096 || l.Started() != 1 {
				t.Fatalf("answer of %d bytes, fault %v, %d launchers", len(ans), f, l.Started())
			}
			// More than the limit, then a clean exit: still an output limit.
			if err := os.WriteFile(filepath.Join(spec.Dir, "bot.sh"), []byte(`head -c 4097 /dev/zero`), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, f = l.Run(context.Background(), nil, 10*time.Second); f == nil || f.Outcome != engine.OutputLimit {
				t.Fatalf("fault %v; want an output limit", f)
			}
		})
	}
}

// launcherCases are bots whose decisions must end the same way through a launcher as
// through RunArgv.
var launcherCases = []struct {
	name, script string
	want         engine.Outcome
	detail       []string
}{
	{"ok", `echo "  7 "`, engine.OK, nil},
	{"exit3", `echo 7; echo "it broke" >&2; exit 3`, engine.Crash, []string{"exit status 3", "it broke"}},
	{"segv", `echo 7; kill -SEGV $$`, engine.Crash, nil},
	{"selfkill", `kill -KILL $$`, engine.Killed, nil},
	{"exit137", `exit 137`, engine.Killed, nil},
	{"childkilled", `sleep 100 & kill -9 $!; wait $!`, engine.Killed, nil},
	{"oom", `echo "MemoryError" >&2; exit 1`, engine.MemoryLimit, nil},
	{"xfsz", `exec head -c 20000000 /dev/zero > big`, engine.OutputLimit, nil},
	{"cpu", `while :; do :; done`, engine.Timeout, nil},
	{"missing", `exec ./nonexistent`, engine.Crash, nil},
}

func TestLauncherSameOutcomesAsRunArgv(t *testing.T) {
	for name, sb := range launcherSandboxes(t) {
		t.Run(name, func(t *testing.T) {
			for _, c := range launcherCases {
				if name == "none" && (c.name == "xfsz" || c.name == "cpu") {
					continue // Unsandboxed applies no file-size limit, RunArgv no CPU limit
				}
				t.Run(c.name, func(t *testing.T) {
					t.Parallel()
					spec := argvBot(t, c.script)
					spec.Limits.FileSizeMB = 8
					spec.Limits.CPUTime = time.Second
					l := newTestLauncher(t, sb, spec)
					ans, lf := l.Run(context.Background(), nil, 30*time.Second)
					want, af := RunArgv(context.Background(), sb, spec, nil, 30*time.Second)
					if outcome(lf) != c.want || outcome(af) != c.want || ans != want {
						t.Fatalf("launcher: %q, %v\nRunArgv:  %q, %v\nwant %s", ans, lf, want, af, c.want)
					}
					for _, d := range c.detail {
						if !strings.Contains(lf.Detail, d) {
							t.Errorf("detail %q lacks %q", lf.Detail, d)
						}
					}
				})
			}
		})
	}
}

func TestLauncherCannotStart(t *testing.T) {
	for name, sb := range launcherSandboxes(t) {
		t.Run(name, func(t *testing.T) {
			l := newTestLauncher(t, sb, ProcSpec{Dir: t.TempDir(), Argv: []string{"./bot"}})
			_, f := l.Run(context.Background(), []string{"1"}, 5*time.Second)
			if f == nil || f.Outcome != engine.Crash || !strings.Contains(f.Detail, "cannot start") {
				t.Fatalf("fault %v; want a crash (the bot's program is missing)", f)
			}
		})
	}
}

func TestLauncherMemoryLimit(t *testing.T) {
	sb := NeedBwrap(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hog.py"), []byte("hoard = bytearray(4 << 30)\nprint(len(hoard))\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l := newTestLauncher(t, sb, ProcSpec{Dir: dir, Argv: []string{"/usr/bin/python3", "hog.py"}, Limits: Limits{MemoryMB: 256}})
	if _, f := l.Run(context.Background(), nil, 30*time.Second); f == nil || f.Outcome != engine.MemoryLimit {
		t.Fatalf("fault %v; want a memory limit", f)
	}
}

// CPU time is limited per decision, not for the launcher: a bot that uses most of its
// allowance in every decision is never cut off for the sum.
func TestLauncherCPUTimePerDecision(t *testing.T) {
	sb := NeedBwrap(t)
	dir := t.TempDir()
	src := "import time\nwhile time.process_time() < 0.6:\n    pass\nprint('done')\n"
	if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := ProcSpec{Dir: dir, Argv: []string{"/usr/bin/python3", "bot.py"}, Limits: Limits{CPUTime: time.Second}}
	l := newTestLauncher(t, sb, spec)
	for i := range 3 {
		if ans, f := l.Run(context.Background(), nil, 30*time.Second); f != nil || ans != "done" {
			t.Fatalf("decision %d: answer %q, fault %v", i, ans, f)
		}
	}
}

// Orphans that exit during a decision are reaped while it runs: their zombies must not
// use up the bot's process limit (a fresh sandbox's init reaps them too).
func TestLauncherReapsOrphansDuringDecision(t *testing.T) {
	sb := NeedBwrap(t)
	spec := argvBot(t, `for i in $(seq 60); do (true &); sleep 0.03; done; echo done`)
	spec.Limits.Procs = 12
	l := newTestLauncher(t, sb, spec)
	if ans, f := l.Run(context.Background(), nil, 30*time.Second); f != nil || ans != "done" {
		t.Fatalf("answer %q, fault %v", ans, f)
	}
}

// In its own PID namespace a bot cannot reach the launcher: killing its parent, pid 1 or
// every process it may signal leaves the launcher serving.
func TestLauncherParricide(t *testing.T) {
	for name, sb := range launcherSandboxes(t) {
		t.Run(name, func(t *testing.T) {
			spec := argvBot(t, `kill -9 $PPID; kill -9 1; kill -STOP $PPID; kill -9 -1; echo survived`)
			l := newTestLauncher(t, sb, spec)
			for i := range 2 {
				r := l.Launch(context.Background(), Job{Timeout: 10 * time.Second})
				// kill -9 -1 takes the bot itself too: the answer may be lost, never the launcher.
				if (r.Fault != nil && r.Fault.Outcome != engine.Killed) || l.Started() != 1 {
					t.Fatalf("decision %d: %+v, %d launchers started", i, r, l.Started())
				}
			}
			if err := os.WriteFile(filepath.Join(spec.Dir, "bot.sh"), []byte(`kill -9 $PPID; kill -9 1; echo survived`), 0o644); err != nil {
				t.Fatal(err)
			}
			if ans, f := l.Run(context.Background(), nil, 10*time.Second); f != nil || ans != "survived" || l.Started() != 1 {
				t.Fatalf("answer %q, fault %v, %d launchers started", ans, f, l.Started())
			}
		})
	}
}

// Without PID namespaces (the fallback) a bot can kill or stop the launcher: the decision
// is the bot's fault, the sandbox is killed, and a new launcher serves the next decision.
func TestLauncherGroupModeKilledOrStopped(t *testing.T) {
	for name, sb := range launcherSandboxes(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := launcherMarker()
			spec := argvBot(t, `
case $1 in
kill) sleep `+m+` & kill -9 $PPID; sleep 1;;
stop) kill -STOP $PPID; echo stopped;;
*) setsid sleep `+m+` </dev/null >/dev/null 2>&1 & echo "fine $1";;
esac`)
			l := newTestLauncher(t, sb, spec)
			l.isolation, l.slack = "group", 500*time.Millisecond
			if ans, f := l.Run(context.Background(), []string{"1"}, 10*time.Second); f != nil || ans != "fine 1" {
				t.Fatalf("answer %q, fault %v", ans, f)
			}
			if _, f := l.Run(context.Background(), []string{"kill"}, 10*time.Second); f == nil || f.Outcome != engine.Killed {
				t.Fatalf("fault %v; want killed (the bot killed its launcher)", f)
			}
			if ans, f := l.Run(context.Background(), []string{"2"}, 10*time.Second); f != nil || ans != "fine 2" || l.Started() != 2 {
				t.Fatalf("after a kill: answer %q, fault %v, %d launchers started", ans, f, l.Started())
			}
			if _, f := l.Run(context.Background(), []string{"stop"}, time.Second); f == nil || f.Outcome != engine.Timeout {
				t.Fatalf("fault %v; want a timeout (the bot stopped its launcher)", f)
			}
			if ans, f := l.Run(context.Background(), []string{"3"}, 10*time.Second); f != nil || ans != "fine 3" || l.Started() != 3 {
				t.Fatalf("after a stop: answer %q, fault %v, %d launchers started", ans, f, l.Started())
			}
			l.Close()
			if name == "none" {
				// Unsandboxed, a killed group-mode launcher leaves the bot's processes
				// to the host (only the bot's main process has a parent-death signal).
				for pid := range processesWith(m) {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			waitNoLeftovers(t, m)
		})
	}
}

func TestLauncherHostFaults(t *testing.T) {
	spec := argvBot(t, "echo 1")
	if _, f := NewLauncher(argvBrokenSandbox{}, spec).Run(context.Background(), nil, time.Second); f == nil || f.Outcome != engine.HostFault {
		t.Fatalf("fault %v; want a host fault (no sandbox)", f)
	}
	l := NewLauncher(Unsandboxed{}, spec)
	l.python = "/nonexistent/python3"
	if _, f := l.Run(context.Background(), nil, time.Second); f == nil || f.Outcome != engine.HostFault {
		t.Fatalf("fault %v; want a host fault (no interpreter for the launcher)", f)
	}

	l = newTestLauncher(t, Unsandboxed{}, spec)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, f := l.Run(ctx, nil, time.Second); f == nil || f.Outcome != engine.HostFault {
		t.Fatalf("fault %v; want a host fault for a cancelled run", f)
	}
	// Cancelled while the bot runs: the decision's processes go with the launcher.
	m := launcherMarker()
	spec = argvBot(t, "[ -e started ] && exit; touch started; exec sleep "+m)
	l = newTestLauncher(t, Unsandboxed{}, spec)
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for !exists(filepath.Join(spec.Dir, "started")) {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	if _, f := l.Run(ctx, nil, time.Minute); f == nil || f.Outcome != engine.HostFault {
		t.Fatalf("fault %v; want a host fault for a cancelled run", f)
	}
	waitNoLeftovers(t, m)
	if ans, f := l.Run(context.Background(), nil, 10*time.Second); f != nil || ans != "" || l.Started() != 2 {
		t.Fatalf("after a cancel: answer %q, fault %v, %d launchers", ans, f, l.Started())
	}
}

// A launcher that fails on its own (here: a request it cannot read) reports a host fault
// and goes on serving.
func TestLauncherOwnFailureIsHostFault(t *testing.T) {
	l := newTestLauncher(t, Unsandboxed{}, argvBot(t, "echo ok"))
	lp, err := l.get(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rep, f := lp.exchange(context.Background(), launchRequest{ID: 7, Timeout: 5, Stdin: "not base64!"}, 10*time.Second)
	if f != nil {
		t.Fatalf("exchange: %v", f)
	}
	if r := rep.launched(5*time.Second, 1<<20); outcome(r.Fault) != engine.HostFault {
		t.Fatalf("%+v; want a host fault", r)
	}
	l.put(lp)
	if ans, f := l.Run(context.Background(), nil, 10*time.Second); f != nil || ans != "ok" || l.Started() != 1 {
		t.Fatalf("next decision: answer %q, fault %v, %d launchers", ans, f, l.Started())
	}
}

// A bot allowed fewer descriptors than the launcher needs keeps its own limit.
func TestLauncherFewOpenFiles(t *testing.T) {
	sb := NeedBwrap(t)
	spec := argvBot(t, "ulimit -n")
	spec.Limits.OpenFiles = 10
	l := newTestLauncher(t, sb, spec)
	for range 2 {
		if ans, f := l.Run(context.Background(), nil, 10*time.Second); f != nil || ans != "10" {
			t.Fatalf("answer %q, fault %v", ans, f)
		}
	}
}

// Concurrent decisions of one bot each get a launcher process; none waits for another.
func TestLauncherConcurrent(t *testing.T) {
	for name, sb := range launcherSandboxes(t) {
		t.Run(name, func(t *testing.T) {
			spec := argvBot(t, `echo "$1"`)
			l := newTestLauncher(t, sb, spec)
			const workers, each = 4, 5
			var wg sync.WaitGroup
			errs := make(chan string, workers*each)
			for w := range workers {
				wg.Go(func() {
					for i := range each {
						arg := strconv.Itoa(w*100 + i)
						if ans, f := l.Run(context.Background(), []string{arg}, 10*time.Second); f != nil || ans != arg {
							errs <- "answer " + ans + " for " + arg + ": " + f.Error()
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for e := range errs {
				t.Error(e)
			}
			if n := l.Started(); n < 1 || n > workers {
				t.Fatalf("%d launcher processes for %d concurrent callers", n, workers)
			}
		})
	}
}

// The hostile one-shot bots through a launcher: every attack fails with the outcome it
// gets from RunArgv, nothing is left behind, and no other file changes.
func TestLauncherHostileOneShot(t *testing.T) {
	sb := NeedBwrap(t)
	w := NewHostileWorld(t)
	lim := Limits{MemoryMB: 256, Procs: 16, OpenFiles: 64, OutputBytes: 64 << 10, FileSizeMB: 8, CPUTime: time.Second}
	t.Run("attacks", func(t *testing.T) {
		for _, c := range append(slices.Clone(oneshotAttacks), wholeSandboxAttacks...) {
			t.Run(c.script, func(t *testing.T) {
				t.Parallel()
				spec, timeout := w.install(t, c, lim)
				l := NewLauncher(sb, spec)
				defer l.Close()
				// Twice: the second decision meets whatever the first left of the sandbox.
				for range 2 {
					ans, f := l.Run(context.Background(), []string{w.Marker}, timeout)
					w.judge(t, c, ans, f)
					// Other attacks run meanwhile: only this bot's processes count (by the
					// script's own name: forkspin.sh's processes are not spin.sh's).
					for pid, cmd := range processesWith(w.Marker) {
						if slices.Contains(strings.Fields(cmd), c.script) {
							t.Errorf("process %d (%s) left once the decision was reported", pid, cmd)
						}
					}
				}
				if n := l.Started(); n != 1 {
					t.Errorf("%d launchers started; the bot broke its launcher", n)
				}
			})
		}
	})
	w.CheckAftermath(t)
}

// benchLaunches measures decisions per second of a bot, through a Launcher or through
// RunArgv (a sandbox per decision).
func benchLaunches(b *testing.B, sb Sandbox, interp, file, src string, viaLauncher bool) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, file), []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	spec := ProcSpec{Dir: dir, Argv: []string{interp, file}, Limits: Limits{MemoryMB: 1024, Procs: 64, OpenFiles: 64, OutputBytes: 64 << 10}}
	l := NewLauncher(sb, spec)
	defer l.Close()
	run := func() (string, *engine.Fault) {
		if viaLauncher {
			return l.Run(context.Background(), []string{"1"}, 10*time.Second)
		}
		return RunArgv(context.Background(), sb, spec, []string{"1"}, 10*time.Second)
	}
	if _, f := run(); f != nil { // the launcher's start is not a launch
		b.Fatal(f)
	}
	b.ResetTimer()
	for b.Loop() {
		if ans, f := run(); f != nil || ans != "1" {
			b.Fatalf("answer %q, fault %v", ans, f)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "launches/s")
}

const (
	benchBash   = "echo $1\n"
	benchPython = "import sys\nprint(sys.argv[1])\n"
)

func BenchmarkLauncherBash(b *testing.B) {
	benchLaunches(b, Unsandboxed{}, "bash", "bot.sh", benchBash, true)
}

func BenchmarkLauncherBashBwrap(b *testing.B) {
	benchLaunches(b, NeedBwrap(b), "bash", "bot.sh", benchBash, true)
}

func BenchmarkLauncherPythonBwrap(b *testing.B) {
	benchLaunches(b, NeedBwrap(b), "/usr/bin/python3", "bot.py", benchPython, true)
}

func BenchmarkRunArgvPythonBwrap(b *testing.B) {
	benchLaunches(b, NeedBwrap(b), "/usr/bin/python3", "bot.py", benchPython, false)
}

func BenchmarkRunArgvBashBwrap(b *testing.B) {
	benchLaunches(b, NeedBwrap(b), "bash", "bot.sh", benchBash, false)
}
