package pyclass

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kothd/kothd/runner/sandbox"
	"github.com/kothd/kothd/runner/sandbox/sandboxtest"

	"github.com/kothd/kothd/engine"
)

// Tests of the run's and answers' cgroups (cgroup_share.go), the budget watcher
// (pywatch.go) and stray processes (killStrays), with real harness processes under bwrap
// and the host's real cgroups.

// forker is an answer whose bot, on its "start" call for a game whose first score is 1,
// forks n children that leave its session and spin for ever, then answers at once.
func forker(n int) string {
	return `
import os
class Forker(Bot):
    def make_throw(self, scores, last_round):
        if scores[0] == 1:
            for _ in range(` + strconv.Itoa(n) + `):
                if os.fork() == 0:
                    os.setsid()
                    if os.fork() == 0:
                        while True:
                            pass
                    os._exit(0)
        yield False
`
}

// sandboxProcs lists the processes of bot b's sandbox now (nil once it has none).
func sandboxProcs(t *testing.T, pool *PyPool, b int) []string {
	t.Helper()
	proc := pool.bots[b].proc
	if proc == nil {
		return nil
	}
	dir := proc.Proc.CgroupDir()
	if dir == "" {
		t.Fatal("the bot's process has no cgroup")
	}
	data, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	return strings.Fields(string(data))
}

// strayCallLeavesOwnThree plays bot 0's call that starts its strays (game 1, whose first
// score is 1) and waits until its sandbox holds only its own three processes (bwrap, its
// init, the harness), failing the test if that does not come.
func strayCallLeavesOwnThree(t *testing.T, pool *PyPool) {
	t.Helper()
	r := pool.Exchange(context.Background(), []engine.Call{newCall(1), {Bot: 0, Game: 1, Method: "start", Args: map[string]any{"throws": []int{1}, "scores": []int{1, 0}, "last": false}}})
	if r[1].Fault != nil {
		t.Fatalf("the call that starts the strays: %v", r[1].Fault)
	}
	// The sweep kills before the reply is handed back; the kernel takes a moment to reap.
	// Bounded generously for a loaded machine; the count is what is asserted.
	var procs []string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if procs = sandboxProcs(t, pool, 0); len(procs) == 3 {
			return
		}
	}
	t.Fatalf("the sandbox holds %d processes after the reply, want its own 3: %v", len(procs), procs)
}

// A bot's children that run on after its reply are killed with the reply: only the
// sandbox's own three processes (bwrap, its init, the harness) are left, and the harness
// answers on.
func TestStraysKilledAfterReply(t *testing.T) {
	sb := sandboxtest.NeedBwrap(t)
	pool := NewPyPool(sb, fortyConfig(time.Second), []engine.Bot{{Entrant: engine.Entrant{Name: "Forker"}, Dir: pyAnswer(t, forker(3))}})
	defer pool.Close()
	ctx := context.Background()
	strayCallLeavesOwnThree(t, pool)
	if r := pool.Exchange(ctx, []engine.Call{newCall(2), startCall(2)}); r[1].Fault != nil {
		t.Fatalf("the harness after its children were killed: %v", r[1].Fault)
	}
}

// A chain of processes, each forking the next and exiting at once, moves on faster than
// cgroup.procs can be read: it is ended with the reply all the same (killStrays holds the
// sandbox's forks while it sweeps), and stays ended.
func TestStrayChainKilledAfterReply(t *testing.T) {
	sb := sandboxtest.NeedBwrap(t)
	pool := NewPyPool(sb, fortyConfig(time.Second), []engine.Bot{{Entrant: engine.Entrant{Name: "Chain"}, Dir: pyAnswer(t, `
import os, time
class Chain(Bot):
    def make_throw(self, scores, last_round):
        if scores[0] == 1:
            if os.fork() == 0:
                os.setsid()
                while True:
                    try:
                        if os.fork() != 0:
                            os._exit(0)
                    except OSError:
                        pass
            time.sleep(0.05)  # the chain is under way when the reply is swept after
        yield False
`)}})
	defer pool.Close()
	ctx := context.Background()
	strayCallLeavesOwnThree(t, pool)
	time.Sleep(300 * time.Millisecond)
	if procs := sandboxProcs(t, pool, 0); len(procs) != 3 {
		t.Fatalf("the chain went on after the sweep: %d processes, want 3: %v", len(procs), procs)
	}
	// The harness answers on, and the sandbox's process limit is back (not the sweep's 0).
	if r := pool.Exchange(ctx, []engine.Call{newCall(2), startCall(2)}); r[1].Fault != nil {
		t.Fatalf("the harness after the chain was killed: %v", r[1].Fault)
	}
	data, err := os.ReadFile(filepath.Join(pool.bots[0].proc.Proc.CgroupDir(), "pids.max"))
	if err != nil || strings.TrimSpace(string(data)) == "0" {
		t.Fatalf("pids.max after the sweep: %q, %v", data, err)
	}
}

// A bot whose budget is spent by what it left running after its reply is ended then, with
// no request in flight: no process of its sandbox survives, and it was charged for no more
// than a few watcher periods past its budget. What it leaves is a thread spinning in the
// harness's own process (killStrays can only end other processes) and a child process.
func TestSpentBudgetKillsLingeringChildren(t *testing.T) {
	sb := sandboxtest.NeedBwrap(t)
	cfg := fortyConfig(time.Second)
	cfg.Budget = 500 * time.Millisecond
	pool := NewPyPool(sb, cfg, []engine.Bot{{Entrant: engine.Entrant{Name: "Spinner"}, Dir: pyAnswer(t, `
import os, threading
def spin():
    while True:
        pass
class Spinner(Bot):
    def make_throw(self, scores, last_round):
        if scores[0] == 1:
            threading.Thread(target=spin, daemon=True).start()
        yield False
`)}})
	defer pool.Close()
	ctx := context.Background()
	if r := pool.Exchange(ctx, []engine.Call{newCall(0)}); r[0].Fault != nil {
		t.Fatalf("first call: %v", r[0].Fault)
	}
	proc := pool.bots[0].proc
	cgDir := proc.Proc.CgroupDir()
	r := pool.Exchange(ctx, []engine.Call{newCall(1), {Bot: 0, Game: 1, Method: "start", Args: map[string]any{"throws": []int{1}, "scores": []int{1, 0}, "last": false}}})
	if r[1].Fault != nil {
		t.Fatalf("the call that starts the thread: %v", r[1].Fault)
	}
	// No further request: the thread spins until the watcher sees the budget spent.
	select {
	case <-proc.Exited:
	case <-time.After(60 * time.Second):
		t.Fatalf("the sandbox still runs 60 s after the bot's last reply: %v", sandboxProcs(t, pool, 0))
	}
	if _, err := os.Stat(cgDir); !os.IsNotExist(err) {
		t.Errorf("the sandbox's cgroup is still there (%v)", err)
	}
	used, _ := proc.Proc.CPU()
	t.Logf("the sandbox used %v of CPU against a budget of %v", used, cfg.Budget)
	if used < cfg.Budget {
		t.Errorf("ended at %v of CPU, before its budget of %v was spent", used, cfg.Budget)
	}
	// At most one CPU's bandwidth, checked every budgetCheckMin near the end.
	if used > cfg.Budget+300*time.Millisecond {
		t.Errorf("used %v of CPU against a budget of %v: the watcher let it run on", used, cfg.Budget)
	}
	r = pool.Exchange(ctx, []engine.Call{newCall(3)})
	if f := r[0].Fault; f == nil || f.Outcome != engine.Timeout || !strings.Contains(f.Detail, "budget") {
		t.Errorf("a call after the budget was spent: %+v, want a budget timeout", r[0])
	}
}

// Start-ups are charged: an answer whose import spins 0.3 s of CPU and whose process dies
// on every call is restarted only until its budget is spent, not MaxRestarts times.
func TestStartupsAreCharged(t *testing.T) {
	sb := sandboxtest.NeedBwrap(t)
	cfg := fortyConfig(time.Second)
	cfg.MaxRestarts = 20
	cfg.Budget = time.Second
	dir := pyAnswer(t, `
import os, time
t0 = time.process_time()
while time.process_time() - t0 < 0.3:
    pass
class Dier(Bot):
    def make_throw(self, scores, last_round):
        os._exit(3)
        yield False
`)
	pool := NewPyPool(sb, cfg, []engine.Bot{{Entrant: engine.Entrant{Name: "Dier"}, Dir: dir}})
	defer pool.Close()
	ctx := context.Background()
	budgetFaults := 0
	for g := 0; g < 25; g++ {
		r := pool.Exchange(ctx, []engine.Call{newCall(g), startCall(g)})
		if f := r[1].Fault; f != nil && strings.Contains(f.Detail, "budget") {
			budgetFaults++
		}
	}
	starts := pool.bots[0].restarts
	t.Logf("%d starts, %d calls refused for the budget", starts, budgetFaults)
	// 1 s of budget at >= 0.3 s per start: at most 4 starts (the last one passes it).
	if starts > 4 {
		t.Errorf("%d starts of 0.3 s CPU each within a budget of %v: start-ups are not charged", starts, cfg.Budget)
	}
	if budgetFaults == 0 {
		t.Error("no call was refused for the spent budget")
	}
}

// The bots of a run hold no more memory together than the run's bound: a hog answer of
// four classes each holding 300 MB (under its own 1 GiB limit) in a run bounded to
// 700 MB never has its sandboxes' memory sum past it, the kernel stops hogs (a memory
// fault, the hog's), and a small bot of another answer plays on untouched.
func TestTotalMemoryBound(t *testing.T) {
	sb := sandboxtest.NeedBwrap(t)
	shares, err := sandbox.NewShares(sb, 700)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := shares.Close(); err != nil {
			t.Errorf("the run's cgroups: %v", err)
		}
	}()
	hog := pyAnswer(t, `
held = []
class Hog(Bot):
    def make_throw(self, scores, last_round):
        if scores[0] == 1:
            b = bytearray(300 << 20)
            for i in range(0, len(b), 4096):
                b[i] = 1
            held.append(b)
        yield False
`)
	small := pyAnswer(t, "class Small(Bot):\n    def make_throw(self, scores, last_round):\n        yield False\n")
	cfg := fortyConfig(2 * time.Second)
	cfg.Shares = shares
	cfg.Limits = sandbox.Limits{MemoryMB: 1024}
	var bots []engine.Bot
	for i := 0; i < 4; i++ {
		bots = append(bots, engine.Bot{Entrant: engine.Entrant{Name: "Hog"}, AnswerID: 7, Dir: hog})
	}
	bots = append(bots, engine.Bot{Entrant: engine.Entrant{Name: "Small"}, AnswerID: 8, Dir: small})
	pool := NewPyPool(sb, cfg, bots)
	defer pool.Close()
	ctx := context.Background()

	// Every sandbox's memory, summed, sampled while the hogs allocate.
	var peak atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			var sum int64
			for _, d := range subdirs(filepath.Join(shares.Tree.Mem, shares.Rel)) {
				for _, s := range subdirs(d) {
					sum += readInt(filepath.Join(s, pickV(shares.Tree.V2, "memory.current", "memory.usage_in_bytes")))
				}
			}
			if sum > peak.Load() {
				peak.Store(sum)
			}
		}
	}()
	var calls []engine.Call
	for b := range bots {
		calls = append(calls, engine.Call{Bot: b, Game: 1, Method: "new", Args: map[string]int{"seat": 0}},
			engine.Call{Bot: b, Game: 1, Method: "start", Args: map[string]any{"throws": []int{1}, "scores": []int{1, 0}, "last": false}})
	}
	replies := pool.Exchange(ctx, calls)
	for round := 2; round < 5; round++ {
		if r := pool.Exchange(ctx, []engine.Call{{Bot: 4, Game: round, Method: "new", Args: map[string]int{"seat": 0}},
			{Bot: 4, Game: round, Method: "start", Args: map[string]any{"throws": []int{1}, "scores": []int{1, 0}, "last": false}}}); r[1].Fault != nil {
			t.Errorf("the small bot, round %d: %v", round, r[1].Fault)
		}
	}
	close(stop)
	wg.Wait()

	bound := int64(700) << 20
	t.Logf("the sandboxes' memory peaked at %d MiB together (bound %d MiB)", peak.Load()>>20, bound>>20)
	if peak.Load() > bound {
		t.Errorf("the run's sandboxes held %d bytes together, over the bound of %d", peak.Load(), bound)
	}
	if peak.Load() < 300<<20 {
		t.Errorf("the sampler saw only %d bytes: it measured nothing", peak.Load())
	}
	// A hog past the bound is killed by the kernel (a memory fault), or, while the kernel
	// reclaims what it can before it kills (the hogs' and everyone's file pages: no swap),
	// stalls until its call's wall limit.
	memFaults, stopped := 0, 0
	for b := 0; b < 4; b++ {
		f := replies[2*b+1].Fault
		if f == nil {
			continue
		}
		t.Logf("hog %d: %v", b, f)
		switch f.Outcome {
		case engine.MemoryLimit:
			memFaults++
		case engine.Timeout, engine.HostFault:
		default:
			t.Errorf("hog %d: %v, want a memory fault or a timeout", b, f)
		}
		stopped++
	}
	if memFaults < 1 || stopped < 2 {
		t.Errorf("%d of 4 hogs of 300 MB stopped under a 700 MB bound (%d by the kernel), want at least 2 (1)", stopped, memFaults)
	}
	for _, k := range []int{8, 9} {
		if f := replies[k].Fault; f != nil {
			t.Errorf("the small bot: %v", f)
		}
	}
}

func subdirs(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

func readInt(path string) int64 {
	data, _ := os.ReadFile(path)
	n, _ := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	return n
}

func pickV(v2 bool, a, b string) string {
	if v2 {
		return a
	}
	return b
}
