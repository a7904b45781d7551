package pyclass

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/runner/sandbox/sandboxtest"
)

// Attacks of issue 10 on the pyclass protocol, by real processes in the real bwrap
// sandbox: names on the command line, reply size, host faults charged to bots, time.

// pyAnswer writes src as an answer's bot.py beside the forty harness and returns the dir.
func pyAnswer(t testing.TB, src string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := InstallTestHarness(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func fortyConfig(callTimeout time.Duration) PyConfig {
	return PyConfig{Harness: "forty", Python: "/usr/bin/python3", CallTimeout: callTimeout, StartTimeout: 60 * time.Second, MaxRestarts: 3}
}

func newCall(game int) engine.Call {
	return engine.Call{Bot: 0, Game: game, Method: "new", Args: map[string]int{"seat": 0}}
}

func startCall(game int) engine.Call {
	return engine.Call{Bot: 0, Game: game, Method: "start", Args: map[string]any{"throws": []int{1}, "scores": []int{0, 0}, "last": false}}
}

// A class created at run time with a 140,000-character name once made the harness launch
// fail with "argument list too long", a host fault that stopped the challenge for good.
// Names travel over the pipe: such a class lists and plays like any other (whether it may
// enter is the cycle's call, by its name cap).
func TestLongClassNameTravelsOverThePipe(t *testing.T) {
	sb := sandboxtest.NeedBwrap(t)
	long := "L" + strings.Repeat("o", 140_000) + "ng"
	dir := pyAnswer(t, `
n = "L" + "o" * 140000 + "ng"
globals()[n] = type(n, (Bot,), {"make_throw": lambda self, scores, last: iter([False])})
`)
	cfg := fortyConfig(2 * time.Second)
	classes, err := ListClasses(context.Background(), sb, cfg, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(classes) != 1 || classes[0] != long {
		t.Fatalf("listed %d classes (first %d characters)", len(classes), len(classes[0]))
	}
	pool := NewPyPool(sb, cfg, []engine.Bot{{Entrant: engine.Entrant{Name: long, Seed: 1}, Dir: dir}})
	defer pool.Close()
	r := pool.Exchange(context.Background(), []engine.Call{newCall(0)})
	if r[0].Fault != nil {
		t.Fatalf("hosting the class failed: %v", r[0].Fault)
	}
}

// A reply line past the limit is the bot's output-limit fault, and the runner does not
// hold it whole: 15 MB lines once took the daemon to 650 MB.
func TestOversizedReplyIsOutputLimit(t *testing.T) {
	sb := sandboxtest.NeedBwrap(t)
	dir := pyAnswer(t, protocolOut+`
class Flooder(Bot):
    def __init__(self, *a):
        super().__init__(*a)
        pyclass._write(_out(), '{"replies": [{"r": "' + "x" * (15 << 20) + '"}]}\n')
`)
	pool := NewPyPool(sb, fortyConfig(5*time.Second), []engine.Bot{{Entrant: engine.Entrant{Name: "Flooder"}, Dir: dir}})
	defer pool.Close()
	ctx := context.Background()
	// Start the process first, so what is measured is the reply alone.
	pool.Exchange(ctx, []engine.Call{{Bot: 0, Game: 0, Method: "end"}})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := pool.Exchange(ctx, []engine.Call{newCall(1)})
	runtime.ReadMemStats(&after)
	if r[0].Fault == nil || r[0].Fault.Outcome != engine.OutputLimit {
		t.Fatalf("a 15 MB reply gave fault %v (result of %d bytes), want an output-limit fault", r[0].Fault, len(r[0].Result))
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 6<<20 {
		t.Errorf("reading the reply allocated %d MB; the limit is %d MB", alloc>>20, DefaultReplyBytes>>20)
	}
	if c := pool.Stats(0).Counts(); c[engine.OutputLimit] != 1 {
		t.Errorf("counts %v, want one output-limit fault", c)
	}
}

// A host failure never counts against a bot: after its work copy disappeared, a bot was
// once charged 13,501 crashes (each restart failed, then the restart limit was hit).
func TestVanishedWorkCopyIsHostFault(t *testing.T) {
	sb := sandboxtest.NeedBwrap(t)
	dir := pyAnswer(t, `
import os
class Dies(Bot):
    def __init__(self, *a):
        super().__init__(*a)
        if a[0] == 1:
            os._exit(3)
`)
	cfg := fortyConfig(2 * time.Second)
	cfg.MaxRestarts = 2
	pool := NewPyPool(sb, cfg, []engine.Bot{{Entrant: engine.Entrant{Name: "Dies"}, Dir: dir}})
	defer pool.Close()
	ctx := context.Background()
	if r := pool.Exchange(ctx, []engine.Call{newCall(0)}); r[0].Fault != nil {
		t.Fatalf("first call: %v", r[0].Fault)
	}
	if err := os.RemoveAll(dir); err != nil { // the host loses the work copy
		t.Fatal(err)
	}
	// The bot's own death is its fault; the restarts that fail for the missing copy are not.
	r := pool.Exchange(ctx, []engine.Call{{Bot: 0, Game: 1, Method: "new", Args: map[string]int{"seat": 1}}})
	if r[0].Fault == nil || r[0].Fault.Outcome == engine.HostFault {
		t.Fatalf("the bot's own exit gave %+v, want its fault", r[0])
	}
	for g := 2; g < 40; g++ {
		r := pool.Exchange(ctx, []engine.Call{newCall(g)})
		if r[0].Fault == nil || r[0].Fault.Outcome != engine.HostFault {
			t.Fatalf("game %d without a work copy: %+v, want a host fault", g, r[0])
		}
	}
	st := pool.Stats(0)
	if st.Faults() != 1 || st.HostFaults() != 38 {
		t.Errorf("charged %d faults (%v), host faults %d: want 1 and 38", st.Faults(), st.Counts(), st.HostFaults())
	}
}

// spin loads the machine with n busy processes for the test's duration.
func spin(t *testing.T, n int) {
	t.Helper()
	for range n {
		cmd := exec.Command("sh", "-c", "while :; do :; done")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	}
}

// A call is timed in CPU time, and the harness's own work on a bot's behalf is not timed
// at all: on a loaded machine a wall-clock timer cut numpy's import short inside a bot's
// first call and left numpy broken in that process for the rest of the run. Two bots
// here: one uses the module's np (imported by the harness on first use), one imports
// numpy itself inside its call.
func TestNumpyImportUnderLoadIsNotBroken(t *testing.T) {
	sb := sandboxtest.NeedBwrap(t)
	spin(t, 4*runtime.NumCPU())
	harnessImport := pyAnswer(t, `
class UsesNp(Bot):
    def make_throw(self, scores, last_round):
        yield bool(np.zeros(3).sum() == 0)
`)
	ownImport := pyAnswer(t, `
class ImportsNumpy(Bot):
    def make_throw(self, scores, last_round):
        import numpy
        yield bool(numpy.ones(2).sum() == 2)
`)
	cfg := fortyConfig(500 * time.Millisecond)
	pool := NewPyPool(sb, cfg, []engine.Bot{{Entrant: engine.Entrant{Name: "UsesNp"}, Dir: harnessImport}, {Entrant: engine.Entrant{Name: "ImportsNumpy"}, Dir: ownImport}})
	defer pool.Close()
	ctx := context.Background()
	for bot := range 2 {
		for g := range 5 {
			c := newCall(g)
			c.Bot = bot
			s := startCall(g)
			s.Bot = bot
			r := pool.Exchange(ctx, []engine.Call{c, s})
			for _, x := range r {
				if x.Fault != nil {
					t.Fatalf("bot %d, game %d: %v", bot, g, x.Fault)
				}
			}
			if string(r[1].Result) != "true" {
				t.Fatalf("bot %d, game %d: numpy answered %s", bot, g, r[1].Result)
			}
		}
	}
}

// The call timer counts CPU time: a bot that computes past it is interrupted (and its
// process lives on); one that waits a little longer than it, using no CPU, is not; one that
// sleeps on is caught by the wall-clock backstop (WallFactor times the limit).
func TestCallTimerIsCPUTimeWithWallBackstop(t *testing.T) {
	sb := sandboxtest.NeedBwrap(t)
	dir := pyAnswer(t, `
import time
class Busy(Bot):
    def make_throw(self, scores, last_round):
        if scores[0] == 1:
            while True:
                pass
        if scores[0] == 2:
            time.sleep(0.6)
        if scores[0] == 3:
            time.sleep(100)
        yield False
`)
	cfg := fortyConfig(300 * time.Millisecond)
	pool := NewPyPool(sb, cfg, []engine.Bot{{Entrant: engine.Entrant{Name: "Busy"}, Dir: dir}})
	defer pool.Close()
	ctx := context.Background()
	call := func(g, score int) engine.Reply {
		r := pool.Exchange(ctx, []engine.Call{newCall(g), {Bot: 0, Game: g, Method: "start", Args: map[string]any{"throws": []int{1}, "scores": []int{score, 0}, "last": false}}})
		return r[1]
	}
	if r := call(0, 0); r.Fault != nil {
		t.Fatalf("quick call: %v", r.Fault)
	}
	for _, score := range []int{1, 3} {
		r := call(score, score)
		if r.Fault == nil || r.Fault.Outcome != engine.Timeout || r.Fault.ProcessDied {
			t.Fatalf("call %d: %+v, want the harness's timeout with the process alive", score, r)
		}
	}
	if r := call(2, 2); r.Fault != nil {
		t.Fatalf("a call that waited 0.6 s on a 0.3 s CPU limit: %v", r.Fault)
	}
	if r := call(4, 0); r.Fault != nil {
		t.Fatalf("after the timeouts: %v", r.Fault)
	}
}
