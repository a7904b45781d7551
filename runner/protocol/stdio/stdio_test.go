package stdio_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/cron/crontest"
	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/engine/referee"
	"github.com/kothd/kothd/runner/protocol"
	"github.com/kothd/kothd/runner/protocol/stdio"
)

// open connects Python stdio bots (name → source) in the real sandbox.
func open(t *testing.T, limits config.Limits, bots ...[2]string) (engine.Lines, []*protocol.Stats) {
	t.Helper()
	dir := t.TempDir()
	cfg := crontest.Config(t, dir)
	crontest.NeedLanguage(t, cfg, "python3")
	var prepared []engine.Bot
	for i, b := range bots {
		d := filepath.Join(dir, "bots", b[0])
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "bot.py"), []byte(b[1]), 0o644); err != nil {
			t.Fatal(err)
		}
		prepared = append(prepared, engine.Bot{Entrant: engine.Entrant{Name: b[0]}, AnswerID: int64(i + 1), Dir: d, Run: cfg.Languages["python3"].Run})
	}
	env := &protocol.Env{Challenge: &config.Challenge{Name: "t", Limits: limits}, Config: cfg, Game: referee.Descriptor, Bots: prepared, Sandbox: crontest.Sandbox(t)}
	var r engine.Run
	stats, closeFn, err := stdio.Protocol{}.Open(env, &r)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closeFn)
	return r.Lines, stats
}

// A stdio bot is one process per unit that keeps its state between lines; a timeout, a
// crash or an over-long line is its fault, its process is gone and its next decision
// starts a new one; a bot whose decisions fault fault_streak times in a row sits out the
// rest of its unit, benched, without being started again.
func TestStdioFaults(t *testing.T) {
	counter := "import sys\nn = 0\nfor line in sys.stdin:\n    n += 1\n    print(n, flush=True)\n"
	moody := `import sys, time
n = 0
for line in sys.stdin:
    n += 1
    if line.startswith("sleep"):
        time.sleep(30)
    if line.startswith("crash"):
        sys.exit(3)
    if line.startswith("flood"):
        print("x" * 100000, flush=True)
    print(n, flush=True)
`
	crasher := "import sys\nsys.stdin.readline()\nraise SystemExit('no')\n"
	lim := config.Limits{CallTimeout: config.Duration(2 * time.Second), StartTimeout: config.Duration(20 * time.Second),
		MemoryMB: 256, Procs: 16, OutputKB: 4, FaultStreak: 3}
	lines, stats := open(t, lim, [2]string{"Counter", counter}, [2]string{"Moody", moody}, [2]string{"Crasher", crasher})
	ctx := context.Background()
	ask := func(unit, bot int, line string) (string, *engine.Fault) {
		return lines.Ask(ctx, unit, engine.At{Game: unit}, bot, line, line, nil)
	}
	for i, want := range []string{"1", "2", "3"} {
		if got, f := ask(0, 0, "go"); got != want || f != nil {
			t.Fatalf("Counter's decision %d: %q %v, want %q", i, got, f, want)
		}
	}
	if got, f := ask(1, 0, "go"); got != "1" || f != nil { // another unit: another process
		t.Fatalf("Counter in unit 1: %q %v", got, f)
	}
	for _, c := range []struct{ line, want string }{{"ok", "1"}, {"sleep", "timeout"}, {"ok", "1"}, {"crash", "crash"}, {"ok", "1"}, {"flood", "output limit"}, {"ok", "1"}} {
		got, f := ask(0, 1, c.line)
		switch {
		case f != nil && string(f.Outcome) != c.want:
			t.Errorf("Moody on %q: %v, want %s", c.line, f, c.want)
		case f == nil && got != c.want:
			t.Errorf("Moody on %q: %q, want %s", c.line, got, c.want)
		case f != nil && !f.ProcessDied:
			t.Errorf("Moody on %q: %v, its process not gone", c.line, f)
		}
	}
	for i := range 5 {
		_, f := ask(0, 2, "go")
		if f == nil || (i < 3) == f.Benched || i < 3 && f.Outcome != engine.Crash {
			t.Errorf("Crasher's decision %d: %+v, want a crash for the first 3 and the bench after", i, f)
		}
	}
	lines.EndUnit(1)
	lines.EndUnit(0)
	if c := stats[1].Counts(); c[engine.Timeout] != 1 || c[engine.Crash] != 1 || c[engine.OutputLimit] != 1 || c[engine.OK] != 4 {
		t.Errorf("Moody's accounting %v", c)
	}
	if b := stats[2].Bench(); b == nil || b.Streak != 3 || b.Calls != 2 {
		t.Errorf("Crasher's bench %+v", b)
	}
	if f := stats[2].First(); f == nil || f.Outcome != engine.Crash || !strings.Contains(f.Detail, "no") {
		t.Errorf("Crasher's first fault %+v", f)
	}
}

// A bot that never reads its stdin cannot hold the relay: a request larger than the pipe
// holds is cut off at the bot's deadline like any silence, a timeout of the bot's.
func TestStdioBotThatNeverReads(t *testing.T) {
	lim := config.Limits{CallTimeout: config.Duration(time.Second), StartTimeout: config.Duration(time.Second), MemoryMB: 256, Procs: 16, OutputKB: 4}
	lines, _ := open(t, lim, [2]string{"Deaf", "import time\ntime.sleep(300)\n"})
	start := time.Now()
	_, f := lines.Ask(context.Background(), 0, engine.At{}, 0, strings.Repeat("x", 1<<20), "big", nil)
	if f == nil || f.Outcome != engine.Timeout {
		t.Fatalf("%v, want a timeout", f)
	}
	if d := time.Since(start); d > 2*time.Minute {
		t.Errorf("the relay waited %s for a bot that never reads", d)
	}
	lines.EndUnit(0)
}
