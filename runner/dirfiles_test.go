package runner

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"kothd/engine"
)

// dirBot makes a bot directory holding the given files (`run` is made executable).
func dirBot(t *testing.T, name string, files map[string]string) DirBot {
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
	return DirBot{Name: name, Dir: dir}
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
		RunFile:   "#!/bin/sh\n./bot.py < from_server > to_server\n",
		"bot.py": "#!/usr/bin/env python3\nimport sys\nplayers = open('players').read().split('\\n')\nprint('vote ' + players[-1])\n",
	})
	pool := NewDirPool(Unsandboxed{}, DirConfig{Timeout: 10 * time.Second}, []DirBot{bash, py})
	ctx := context.Background()
	for i := range 2 {
		if err := pool.Setup(i, []string{"Alice", "Bob", "Echo"}); err != nil {
			t.Fatal(err)
		}
	}
	if got := readFile(t, filepath.Join(bash.Dir, PlayersFile)); got != "Alice\nBob\nEcho" {
		t.Errorf("players file = %q", got)
	}
	if err := pool.Deliver(0, "Rise and shine! Today is day 0.\nNo voting will occur today.\n"); err != nil {
		t.Fatal(err)
	}
	out, f := pool.Run(ctx, 0, true)
	if f != nil || out != "said: Rise and shine! Today is day 0.\n" {
		t.Fatalf("Run = %q, %v", out, f)
	}
	if got := readFile(t, filepath.Join(bash.Dir, ToServer)); got != "" {
		t.Errorf("to_server not emptied after reading: %q", got)
	}
	// A run whose output does not matter leaves to_server alone.
	_ = pool.Deliver(0, "The town opted to lynch no one today.\n")
	if out, f := pool.Run(ctx, 0, false); f != nil || out != "" {
		t.Fatalf("uncollected Run = %q, %v", out, f)
	}
	if got := readFile(t, filepath.Join(bash.Dir, ToServer)); got != "said: The town opted to lynch no one today.\n" {
		t.Errorf("to_server after an uncollected run = %q", got)
	}
	if got := readFile(t, filepath.Join(bash.Dir, "memory")); got != "x\nx\n" {
		t.Errorf("the bot's own file did not persist: %q", got)
	}
	if out, f := pool.Run(ctx, 1, true); f != nil || out != "vote Echo\n" {
		t.Fatalf("python bot: Run = %q, %v", out, f)
	}
	if c := pool.Stats(0).Counts(); c[engine.OK] != 2 || pool.Stats(0).Faults() != 0 {
		t.Errorf("stats = %v", c)
	}
}

// running reports whether a process exists and is not a zombie.
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z' && s[i+2] != 'X'
	}
	return true
}

func TestDirPoolTimeoutKillsEverything(t *testing.T) {
	b := dirBot(t, "Sleepy", map[string]string{RunFile: "#!/bin/bash\n" +
		"echo 'vote Alice' > to_server\n" + // half an answer, then it hangs
		"sleep 300 &\necho $! > child\n" +
		"echo $$ > self\n" +
		"echo 'going to sleep' >&2\n" +
		"sleep 300\n"})
	pool := NewDirPool(Unsandboxed{}, DirConfig{Timeout: 300 * time.Millisecond}, []DirBot{b})
	_ = pool.Setup(0, []string{"Alice", "Sleepy"})
	out, f := pool.Run(context.Background(), 0, true)
	if f == nil || f.Outcome != engine.Timeout || out != "" {
		t.Fatalf("Run = %q, %v; want no output and a timeout", out, f)
	}
	if !strings.Contains(f.Detail, "going to sleep") {
		t.Errorf("fault detail lacks the stderr tail: %q", f.Detail)
	}
	if got := readFile(t, filepath.Join(b.Dir, ToServer)); got != "" {
		t.Errorf("to_server not emptied after a timeout: %q", got)
	}
	for _, f := range []string{"self", "child"} {
		pid, err := strconv.Atoi(strings.TrimSpace(readFile(t, filepath.Join(b.Dir, f))))
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for running(pid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if running(pid) {
			t.Errorf("process %s (%d) still running after the timeout", f, pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	if pool.Stats(0).Counts()[engine.Timeout] != 1 {
		t.Errorf("timeout not counted: %v", pool.Stats(0).Counts())
	}
}

func TestDirPoolBackgroundChildDoesNotHoldTheRun(t *testing.T) {
	// The bot leaves a child behind that keeps stderr open; the run must end when the bot
	// does, and the child must die with it.
	b := dirBot(t, "Leaver", map[string]string{RunFile: "#!/bin/bash\n(sleep 300) &\necho $! > child\necho 'say 1' > to_server\n"})
	pool := NewDirPool(Unsandboxed{}, DirConfig{Timeout: 20 * time.Second}, []DirBot{b})
	out, f := pool.Run(context.Background(), 0, true)
	if f != nil || out != "say 1\n" {
		t.Fatalf("Run = %q, %v", out, f)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(readFile(t, filepath.Join(b.Dir, "child"))))
	deadline := time.Now().Add(5 * time.Second)
	for running(pid) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if running(pid) {
		t.Errorf("background child %d survived the run", pid)
		_ = syscall.Kill(pid, syscall.SIGKILL)
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
		{"killed by a signal", map[string]string{RunFile: "#!/bin/bash\nkill -KILL $$\n"}, "", engine.Killed, -1},
		{"garbage", map[string]string{RunFile: "#!/bin/bash\nprintf 'v\\x00o\\xfft\\te !!!\\n' > to_server\n"}, "v\x00o\xfft\te !!!\n", "", 0},
		{"megabytes", map[string]string{RunFile: "#!/bin/bash\nyes 'vote for me!' | head -c 2000000 > to_server\n"}, "", engine.OutputLimit, 0},
		{"to_server is a directory", map[string]string{RunFile: "#!/bin/bash\nrm -f to_server; mkdir -p to_server/x\n"}, "", engine.BadOutput, 0},
		{"to_server is a FIFO", map[string]string{RunFile: "#!/bin/bash\nrm -f to_server; mkfifo to_server\n"}, "", engine.BadOutput, 0},
		{"to_server links outside", map[string]string{RunFile: "#!/bin/bash\nrm -f to_server; ln -s " + outside + " to_server\n"}, "", engine.BadOutput, 0},
		{"writes outside its directory", map[string]string{RunFile: "#!/bin/bash\necho hacked > ../escaped\necho 'vote no one' > to_server\n"}, "vote no one\n", "", 0},
		{"no shebang", map[string]string{RunFile: "echo 'say 4' > to_server\n"}, "say 4\n", "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := dirBot(t, "Bot", c.files)
			pool := NewDirPool(Unsandboxed{}, DirConfig{Timeout: 10 * time.Second, MaxOutput: 4096}, []DirBot{b})
			if err := pool.Setup(0, []string{"Bot", "Other"}); err != nil {
				t.Fatal(err)
			}
			out, f := pool.Run(context.Background(), 0, true)
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
			if err := pool.Setup(0, []string{"Bot", "Other"}); err != nil {
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
	pool := NewDirPool(Unsandboxed{}, DirConfig{}, []DirBot{b})
	if _, f := pool.Run(context.Background(), 0, true); f != nil {
		t.Fatal(f)
	}
	if err := pool.Deliver(0, "Dawn of day 1.\n"); err != nil {
		t.Fatal(err)
	}
	if err := pool.Setup(0, []string{"A", "B"}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, outside); got != "host data" {
		t.Errorf("the engine wrote through the bot's link: %q", got)
	}
	if got := readFile(t, filepath.Join(b.Dir, PlayersFile)); got != "A\nB" {
		t.Errorf("players = %q", got)
	}
}

type brokenSandbox struct{ argv []string }

func (brokenSandbox) Name() string { return "broken" }
func (s brokenSandbox) Command(ctx context.Context, spec ProcSpec) (*exec.Cmd, error) {
	if s.argv == nil {
		return nil, errors.New("bwrap: cannot create namespace")
	}
	return exec.Command(s.argv[0], s.argv[1:]...), nil
}

func TestDirPoolHostFault(t *testing.T) {
	b := dirBot(t, "Fine", map[string]string{RunFile: "#!/bin/sh\necho 'say 1' > to_server\n"})
	for _, sb := range []Sandbox{brokenSandbox{}, brokenSandbox{argv: []string{"/nonexistent/bwrap"}}} {
		pool := NewDirPool(sb, DirConfig{}, []DirBot{b})
		if out, f := pool.Run(context.Background(), 0, true); f == nil || f.Outcome != engine.HostFault || out != "" {
			t.Errorf("%v: Run = %q, %v; want a host fault", sb, out, f)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	pool := NewDirPool(Unsandboxed{}, DirConfig{}, []DirBot{b})
	if _, f := pool.Run(ctx, 0, true); f == nil || f.Outcome != engine.HostFault {
		t.Errorf("cancelled run: %v; want a host fault", f)
	}
}

func TestInstallShims(t *testing.T) {
	b := dirBot(t, "Old", map[string]string{
		RunFile:     "#!/bin/sh\n./randy.py > to_server\n",
		"randy.py": "#!/usr/bin/env python\nimport sys\nprint('say %d' % sys.version_info[0])\n",
	})
	if err := InstallShims(b.Dir, map[string]string{"python": "/usr/bin/python3"}); err != nil {
		t.Fatal(err)
	}
	pool := NewDirPool(Unsandboxed{}, DirConfig{}, []DirBot{b})
	if out, f := pool.Run(context.Background(), 0, true); f != nil || out != "say 3\n" {
		t.Fatalf("Run = %q, %v; want the linked interpreter to run the bot", out, f)
	}
}

// BenchmarkDirPoolLaunch measures bot launches per second: a bash bot that reads
// from_server and answers, the whole protocol included.
func BenchmarkDirPoolLaunch(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "Bench")
	_ = os.MkdirAll(dir, 0o755)
	_ = os.WriteFile(filepath.Join(dir, RunFile), []byte("#!/bin/bash\nread -r l < from_server\necho \"say 1\" > to_server\n"), 0o755)
	pool := NewDirPool(Unsandboxed{}, DirConfig{}, []DirBot{{Name: "Bench", Dir: dir}})
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		_ = pool.Deliver(0, "Rise and shine! Today is day 0.\n")
		if out, f := pool.Run(ctx, 0, true); f != nil || out != "say 1\n" {
			b.Fatalf("Run = %q, %v", out, f)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "launches/s")
}
