package dirfiles

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/runner/sandbox"

	"github.com/kothd/kothd/engine"
)

// dirBot makes a bot directory holding the given files (`run` is made executable).
func dirBot(t *testing.T, name string, files map[string]string) engine.Bot {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for n, c := range files {
		mode := os.FileMode(0o644)
		if n == RunFile || strings.HasPrefix(c, "#!") {
			mode = 0o755
		}
		if err := os.WriteFile(filepath.Join(dir, n), []byte(c), mode); err != nil {
			t.Fatal(err)
		}
	}
	return engine.Bot{Entrant: engine.Entrant{Name: name}, Dir: dir}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestDirPoolAnswers(t *testing.T) {
	bash := dirBot(t, "Echo", map[string]string{RunFile: "#!/bin/bash\n" +
		"# answers with the first line it was sent, and remembers how often it ran\n" +
		"read -r line < from_server\n" +
		"echo \"said: $line\" > to_server\n" +
		"echo x >> memory\n"})
	py := dirBot(t, "Pyth", map[string]string{
		RunFile:  "#!/bin/sh\n./bot.py < from_server > to_server\n",
		"bot.py": "#!/usr/bin/env python3\nimport sys\nplayers = open('players').read().split('\\n')\nprint('vote ' + players[-1])\n",
	})
	pool := NewDirPool(sandbox.Unsandboxed{}, DirConfig{Timeout: 10 * time.Second}, []engine.Bot{bash, py})
	defer pool.Close()
	ctx := context.Background()
	for i := range 2 {
		if err := pool.Setup(0, i, []string{"Alice", "Bob", "Echo"}); err != nil {
			t.Fatal(err)
		}
	}
	if got := readFile(t, filepath.Join(bash.Dir, PlayersFile)); got != "Alice\nBob\nEcho" {
		t.Errorf("players file = %q", got)
	}
	if err := pool.Deliver(0, "Rise and shine! Today is day 0.\nNo voting will occur today.\n"); err != nil {
		t.Fatal(err)
	}
	out, f := pool.Run(ctx, engine.At{}, 0, true)
	if f != nil || out != "said: Rise and shine! Today is day 0.\n" {
		t.Fatalf("Run = %q, %v", out, f)
	}
	if got := readFile(t, filepath.Join(bash.Dir, ToServer)); got != "" {
		t.Errorf("to_server not emptied after reading: %q", got)
	}
	// A run whose output does not matter leaves to_server alone.
	_ = pool.Deliver(0, "The town opted to lynch no one today.\n")
	if out, f := pool.Run(ctx, engine.At{}, 0, false); f != nil || out != "" {
		t.Fatalf("uncollected Run = %q, %v", out, f)
	}
	if got := readFile(t, filepath.Join(bash.Dir, ToServer)); got != "said: The town opted to lynch no one today.\n" {
		t.Errorf("to_server after an uncollected run = %q", got)
	}
	if got := readFile(t, filepath.Join(bash.Dir, "memory")); got != "x\nx\n" {
		t.Errorf("the bot's own file did not persist: %q", got)
	}
	if out, f := pool.Run(ctx, engine.At{}, 1, true); f != nil || out != "vote Echo\n" {
		t.Fatalf("python bot: Run = %q, %v", out, f)
	}
	if c := pool.Stats(0).Counts(); c[engine.OK] != 2 || pool.Stats(0).Faults() != 0 {
		t.Errorf("stats = %v", c)
	}
}

// running reports whether a live (not zombie) process has exactly this command line. Bots
// may run in a PID namespace, so the pids they see are not the host's: tests find their
// processes by a unique command line instead.
func running(argv ...string) bool {
	want := strings.Join(argv, "\x00") + "\x00"
	procs, _ := os.ReadDir("/proc")
	for _, d := range procs {
		if _, err := strconv.Atoi(d.Name()); err != nil {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + d.Name() + "/cmdline")
		if err != nil || string(cmdline) != want {
			continue
		}
		stat, _ := os.ReadFile("/proc/" + d.Name() + "/stat")
		if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && i+2 < len(stat) && (stat[i+2] == 'Z' || stat[i+2] == 'X') {
			continue
		}
		return true
	}
	return false
}

// gone waits (boundedly: a kill is asynchronous, and slow on a loaded machine) until no
// process has this command line.
func gone(argv ...string) bool {
	deadline := time.Now().Add(30 * time.Second)
	for running(argv...) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

func TestDirPoolTimeoutKillsEverything(t *testing.T) {
	b := dirBot(t, "Sleepy", map[string]string{RunFile: "#!/bin/bash\n" +
		"echo 'vote Alice' > to_server\n" + // half an answer, then it hangs
		"sleep 3141 &\n" +
		"echo 'going to sleep' >&2\n" +
		"sleep 2718\n"})
	pool := NewDirPool(sandbox.Unsandboxed{}, DirConfig{Timeout: 300 * time.Millisecond}, []engine.Bot{b})
	defer pool.Close()
	_ = pool.Setup(0, 0, []string{"Alice", "Sleepy"})
	out, f := pool.Run(context.Background(), engine.At{}, 0, true)
	if f == nil || f.Outcome != engine.Timeout || out != "" {
		t.Fatalf("Run = %q, %v; want no output and a timeout", out, f)
	}
	if !strings.Contains(f.Detail, "going to sleep") {
		t.Errorf("fault detail lacks the stderr tail: %q", f.Detail)
	}
	if got := readFile(t, filepath.Join(b.Dir, ToServer)); got != "" {
		t.Errorf("to_server not emptied after a timeout: %q", got)
	}
	for _, s := range []string{"3141", "2718"} {
		if !gone("sleep", s) {
			t.Errorf("sleep %s still running after the timeout", s)
		}
	}
	if pool.Stats(0).Counts()[engine.Timeout] != 1 {
		t.Errorf("timeout not counted: %v", pool.Stats(0).Counts())
	}
}

func TestDirPoolBackgroundChildDoesNotHoldTheRun(t *testing.T) {
	// The bot leaves a child behind that keeps stderr open; the run must end when the bot
	// does, and the child must die with it.
	b := dirBot(t, "Leaver", map[string]string{RunFile: "#!/bin/bash\n(sleep 1618) &\necho 'say 1' > to_server\n"})
	pool := NewDirPool(sandbox.Unsandboxed{}, DirConfig{Timeout: 20 * time.Second}, []engine.Bot{b})
	defer pool.Close()
	out, f := pool.Run(context.Background(), engine.At{}, 0, true)
	if f != nil || out != "say 1\n" {
		t.Fatalf("Run = %q, %v", out, f)
	}
	if !gone("sleep", "1618") {
		t.Error("the background child survived the run")
	}
}

func TestDirPoolFaults(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "precious")
	if err := os.WriteFile(outside, []byte("host data"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		files   map[string]string
		out     string
		outcome engine.Outcome // "" for no fault
		exit    int
	}{
		{"crash keeps its answer", map[string]string{RunFile: "#!/bin/bash\necho 'say 2' > to_server\necho boom >&2\nexit 3\n"}, "say 2\n", engine.Crash, 3},
		{"python traceback", map[string]string{RunFile: "#!/bin/sh\npython3 bot.py < from_server > to_server\n", "bot.py": "raise SystemExit(undefined_name)\n"}, "", engine.Crash, 1},
		{"missing helper", map[string]string{RunFile: "#!/bin/sh\n./real_bot.py\n"}, "", engine.Crash, 127},
		{"killed by a signal", map[string]string{RunFile: "#!/bin/bash\nkill -KILL $$\n"}, "", engine.Killed, -1}, // run directly: no shell reports 137
		{"garbage", map[string]string{RunFile: "#!/bin/bash\nprintf 'v\\x00o\\xfft\\te !!!\\n' > to_server\n"}, "v\x00o\xfft\te !!!\n", "", 0},
		{"megabytes", map[string]string{RunFile: "#!/bin/bash\nyes 'vote for me!' | head -c 2000000 > to_server\n"}, "", engine.OutputLimit, 0},
		{"to_server is a directory", map[string]string{RunFile: "#!/bin/bash\nrm -f to_server; mkdir -p to_server/x\n"}, "", engine.BadOutput, 0},
		{"to_server is a FIFO", map[string]string{RunFile: "#!/bin/bash\nrm -f to_server; mkfifo to_server\n"}, "", engine.BadOutput, 0},
		{"to_server links outside", map[string]string{RunFile: "#!/bin/bash\nrm -f to_server; ln -s " + outside + " to_server\n"}, "", engine.BadOutput, 0},
		{"writes outside its directory", map[string]string{RunFile: "#!/bin/bash\necho hacked > ../escaped\necho 'vote no one' > to_server\n"}, "vote no one\n", "", 0},
		{"no shebang", map[string]string{RunFile: "echo 'say 4' > to_server\n"}, "say 4\n", "", 0},
		// Executed directly, run reports what the original's shell would have: 127.
		{"no run", map[string]string{"bot.py": "print('say 1')\n"}, "", engine.Crash, 127},
		{"missing interpreter", map[string]string{RunFile: "#!/nonexistent/python\nprint('say 1')\n"}, "", engine.Crash, 127},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := dirBot(t, "Bot", c.files)
			pool := NewDirPool(sandbox.Unsandboxed{}, DirConfig{Timeout: 10 * time.Second, MaxOutput: 4096}, []engine.Bot{b})
			defer pool.Close()
			if err := pool.Setup(0, 0, []string{"Bot", "Other"}); err != nil {
				t.Fatal(err)
			}
			out, f := pool.Run(context.Background(), engine.At{}, 0, true)
			if out != c.out {
				t.Errorf("output = %q, want %q", out, c.out)
			}
			switch {
			case c.outcome == "" && f != nil:
				t.Errorf("unexpected fault %v", f)
			case c.outcome != "" && (f == nil || f.Outcome != c.outcome):
				t.Errorf("fault = %v, want %s", f, c.outcome)
			}
			if got := pool.LastExit(0); got != c.exit {
				t.Errorf("exit status %d, want %d", got, c.exit)
			}
			// Whatever the bot did, the next game can be set up and the bot run again.
			if err := pool.Setup(0, 0, []string{"Bot", "Other"}); err != nil {
				t.Fatalf("Setup after the run: %v", err)
			}
			if err := pool.Deliver(0, "Dawn of day 1.\n"); err != nil {
				t.Fatalf("Deliver after the run: %v", err)
			}
			if st, err := os.Lstat(filepath.Join(b.Dir, ToServer)); err != nil || !st.Mode().IsRegular() {
				t.Errorf("to_server after Setup: %v, %v", st, err)
			}
			if got := readFile(t, outside); got != "host data" {
				t.Errorf("a file outside the bot directory was changed: %q", got)
			}
		})
	}
}

func TestDirPoolDoesNotWriteThroughLinks(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "precious")
	_ = os.WriteFile(outside, []byte("host data"), 0o644)
	b := dirBot(t, "Linker", map[string]string{RunFile: "#!/bin/bash\nrm -f from_server players; ln -s " + outside + " from_server; ln " + outside + " players 2>/dev/null || ln -s " + outside + " players\n"})
	pool := NewDirPool(sandbox.Unsandboxed{}, DirConfig{}, []engine.Bot{b})
	defer pool.Close()
	if _, f := pool.Run(context.Background(), engine.At{}, 0, true); f != nil {
		t.Fatal(f)
	}
	if err := pool.Deliver(0, "Dawn of day 1.\n"); err != nil {
		t.Fatal(err)
	}
	if err := pool.Setup(0, 0, []string{"A", "B"}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, outside); got != "host data" {
		t.Errorf("the engine wrote through the bot's link: %q", got)
	}
	if got := readFile(t, filepath.Join(b.Dir, PlayersFile)); got != "A\nB" {
		t.Errorf("players = %q", got)
	}
}

// Under bwrap a root daemon's bots run as another user, who owns the bot directory from
// the sandbox's start; the files the engine writes later, for the next game, must stay
// writable by the bot, even when the bot deleted one of them.
func TestDirPoolBwrapOwnership(t *testing.T) {
	sb, err := sandbox.NewSandbox("bwrap", nil)
	if err != nil {
		t.Skip(err)
	}
	b := dirBot(t, "Owner", map[string]string{RunFile: "#!/bin/bash\n" +
		"read -r l < from_server\necho \"said $l\" > to_server\n" +
		"[[ $l == delete ]] && rm -f to_server from_server players\n" +
		"exit 0\n"})
	pool := NewDirPool(sb, DirConfig{Timeout: 10 * time.Second}, []engine.Bot{b})
	defer pool.Close()
	for game, msg := range []string{"one", "delete", "three", "four"} {
		if err := pool.Setup(0, 0, []string{"Owner", "Other"}); err != nil {
			t.Fatal(err)
		}
		if err := pool.Deliver(0, msg+"\n"); err != nil {
			t.Fatal(err)
		}
		out, f := pool.Run(context.Background(), engine.At{}, 0, true)
		want := "said " + msg + "\n"
		if msg == "delete" {
			want = ""
		}
		if f != nil || out != want {
			t.Errorf("game %d: Run = %q, %v; want %q", game+1, out, f, want)
		}
	}
}

type brokenSandbox struct{ argv []string }

func (brokenSandbox) Name() string { return "broken" }
func (s brokenSandbox) Command(ctx context.Context, spec sandbox.ProcSpec) (*sandbox.Process, error) {
	if s.argv == nil {
		return nil, errors.New("bwrap: cannot create namespace")
	}
	return &sandbox.Process{Cmd: exec.Command(s.argv[0], s.argv[1:]...)}, nil
}

func TestDirPoolHostFault(t *testing.T) {
	b := dirBot(t, "Fine", map[string]string{RunFile: "#!/bin/sh\necho 'say 1' > to_server\n"})
	for _, sb := range []sandbox.Sandbox{brokenSandbox{}, brokenSandbox{argv: []string{"/nonexistent/bwrap"}}} {
		pool := NewDirPool(sb, DirConfig{}, []engine.Bot{b})
		if out, f := pool.Run(context.Background(), engine.At{}, 0, true); f == nil || f.Outcome != engine.HostFault || out != "" {
			t.Errorf("%v: Run = %q, %v; want a host fault", sb, out, f)
		}
		pool.Close()
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	pool := NewDirPool(sandbox.Unsandboxed{}, DirConfig{}, []engine.Bot{b})
	defer pool.Close()
	if _, f := pool.Run(ctx, engine.At{}, 0, true); f == nil || f.Outcome != engine.HostFault {
		t.Errorf("cancelled run: %v; want a host fault", f)
	}
}

func TestInstallShims(t *testing.T) {
	b := dirBot(t, "Old", map[string]string{
		RunFile:    "#!/bin/sh\n./randy.py > to_server\n",
		"randy.py": "#!/usr/bin/env python\nimport sys\nprint('say %d' % sys.version_info[0])\n",
	})
	if err := InstallShims(b.Dir, map[string]string{"python": "/usr/bin/python3"}); err != nil {
		t.Fatal(err)
	}
	pool := NewDirPool(sandbox.Unsandboxed{}, DirConfig{}, []engine.Bot{b})
	defer pool.Close()
	if out, f := pool.Run(context.Background(), engine.At{}, 0, true); f != nil || out != "say 3\n" {
		t.Fatalf("Run = %q, %v; want the linked interpreter to run the bot", out, f)
	}
}

// BenchmarkDirPoolLaunch measures bot launches per second, one after another: a bash bot
// that reads from_server and answers, the whole protocol included, unsandboxed and (where
// it works) in bwrap.
func BenchmarkDirPoolLaunch(b *testing.B) {
	sandboxes := map[string]func() (sandbox.Sandbox, error){
		"none":  func() (sandbox.Sandbox, error) { return sandbox.Unsandboxed{}, nil },
		"bwrap": func() (sandbox.Sandbox, error) { return sandbox.NewSandbox("bwrap", nil) },
	}
	for _, name := range []string{"none", "bwrap"} {
		b.Run(name, func(b *testing.B) {
			sb, err := sandboxes[name]()
			if err != nil {
				b.Skip(err)
			}
			dir := filepath.Join(b.TempDir(), "Bench")
			_ = os.MkdirAll(dir, 0o755)
			_ = os.WriteFile(filepath.Join(dir, RunFile), []byte("#!/bin/bash\nread -r l < from_server\necho \"say 1\" > to_server\n"), 0o755)
			pool := NewDirPool(sb, DirConfig{}, []engine.Bot{{Entrant: engine.Entrant{Name: "Bench"}, Dir: dir}})
			defer pool.Close()
			ctx := context.Background()
			for b.Loop() {
				_ = pool.Deliver(0, "Rise and shine! Today is day 0.\n")
				if out, f := pool.Run(ctx, engine.At{}, 0, true); f != nil || out != "say 1\n" {
					b.Fatalf("Run = %q, %v", out, f)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "launches/s")
		})
	}
}

// TestDirPoolExecStatus: `run` is executed without a shell, yet a run that cannot be
// executed reports the shell's status (126: not executable), and a script without #! is
// run by /bin/sh on every run, the first included.
func TestDirPoolExecStatus(t *testing.T) {
	b := dirBot(t, "Bot", map[string]string{RunFile: "#!/bin/sh\necho 'say 1' > to_server\n"})
	if err := os.Chmod(filepath.Join(b.Dir, RunFile), 0o644); err != nil {
		t.Fatal(err)
	}
	pool := NewDirPool(sandbox.Unsandboxed{}, DirConfig{}, []engine.Bot{b})
	defer pool.Close()
	if out, f := pool.Run(context.Background(), engine.At{}, 0, true); out != "" || f == nil || f.Outcome != engine.Crash || pool.LastExit(0) != 126 {
		t.Errorf("not executable: %q, %v, exit %d; want a crash with status 126", out, f, pool.LastExit(0))
	}

	s := dirBot(t, "Script", map[string]string{RunFile: "n=$(cat count 2>/dev/null || echo 0)\necho $((n+1)) > count\necho \"say $((n+1))\" > to_server\n"})
	pool = NewDirPool(sandbox.Unsandboxed{}, DirConfig{}, []engine.Bot{s})
	defer pool.Close()
	for i := 1; i <= 3; i++ {
		if out, f := pool.Run(context.Background(), engine.At{}, 0, true); f != nil || out != fmt.Sprintf("say %d\n", i) {
			t.Fatalf("run %d of a script without #!: %q, %v", i, out, f)
		}
	}
}

// A bot whose runs all fault is benched after cfg.FaultStreak of them in a row, and one
// whose runs took more than cfg.Budget of wall time together from then on: its later
// runs fail at once (a timeout that says why) and start no process. A run that exits
// with an ordinary non-zero status still gave its answer (Mafia's original ignored the
// status): it is counted as a fault but breaks a streak.
func TestDirPoolBenches(t *testing.T) {
	for _, c := range []struct {
		name, run string
		cfg       DirConfig
		launches  int    // runs that started the bot
		why       string // in the benched runs' fault
	}{
		{"streak", "#!/bin/sh\necho x >> count\nkill -9 $$\n", DirConfig{FaultStreak: 3}, 3, "3 faulted decisions in a row"},
		// Two runs of 2 s pass the 3 s budget, one does not: a busy host may add up to a
		// second to a run (at load 20 it added 0.7 s to each, and a 2.9 s budget of 1 s runs
		// benched a run early).
		{"budget", "#!/bin/sh\necho x >> count\nsleep 2\n", DirConfig{Budget: 3 * time.Second}, 2, "run budget of 3s"},
		{"a non-zero exit answers", "#!/bin/sh\necho x >> count\necho 'vote Alice' > to_server\nexit 1\n", DirConfig{FaultStreak: 3}, 6, ""},
		{"neither", "#!/bin/sh\necho x >> count\nkill -9 $$\n", DirConfig{}, 6, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := dirBot(t, "B", map[string]string{RunFile: c.run})
			p := NewDirPool(sandbox.Unsandboxed{}, c.cfg, []engine.Bot{b})
			defer p.Close()
			var last *engine.Fault
			for turn := range 6 {
				_, last = p.Run(context.Background(), engine.At{Game: 0, Turn: turn}, 0, true)
			}
			if n := strings.Count(readFile(t, filepath.Join(b.Dir, "count")), "x"); n != c.launches {
				t.Errorf("%d runs started the bot, want %d", n, c.launches)
			}
			bench := p.Stats(0).Bench()
			if c.why == "" {
				if bench != nil {
					t.Errorf("benched %+v", bench)
				}
				return
			}
			if bench == nil || bench.Calls != 6-c.launches || last == nil || last.Outcome != engine.Timeout || !strings.Contains(last.Detail, c.why) {
				t.Errorf("bench %+v, last fault %v; want benched (%q) for the last %d runs", bench, last, c.why, 6-c.launches)
			}
		})
	}
}

// The `run` Prepare writes for a Python answer is a form the launcher's fork server
// recognizes (Plan.of_run in runner/sandbox/launch/forkclient.py: one line, words in
// single quotes or bare), and so are the interpreter shims InstallShims writes (its SHIM):
// a change here must be made there too, or Mafia's Python bots silently lose the fork
// server.
func TestRunScriptFormForkServer(t *testing.T) {
	got := "#!/bin/sh\nexec " + shellJoin([]string{"/usr/bin/python3", "bot.py"}) + "\n"
	if want := "#!/bin/sh\nexec '/usr/bin/python3' 'bot.py'\n"; got != want {
		t.Fatalf("run script %q, want %q", got, want)
	}
	dir := t.TempDir()
	if err := InstallShims(dir, map[string]string{"python": "/root/.pyenv/versions/2.7.18/bin/python2.7"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, ShimDir, "python"))
	if want := "#!/bin/sh\nexec '/root/.pyenv/versions/2.7.18/bin/python2.7' \"$@\"\n"; err != nil || string(b) != want {
		t.Fatalf("shim %q (%v), want %q", b, err, want)
	}
}
