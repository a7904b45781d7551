package pyclass

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kothd/kothd/runner/sandbox"

	"github.com/kothd/kothd/engine"
)

// protocolOut is Python for a bot that writes to the harness's protocol output itself (its
// file descriptor is in the harness's module, the bot's to read), whichever batch loop
// serves (pyfast.go): _out() is the descriptor.
const protocolOut = `
import os, pyclass
def _out():
    s = pyclass._serving
    return s["out_fd"] if type(s) is dict else s[1]
`

// The harness runs inside the bot's interpreter, so a bot can rewrite what it reports.
// It must not be able to claim a host fault (which voids games) for itself.
func TestForgedHostFaultIsBadOutput(t *testing.T) {
	dir := t.TempDir()
	bot := protocolOut + `
class Voider(Bot):
    def __init__(self, *a):
        super().__init__(*a)
        os.write(_out(), b'{"replies":[{"f":"host fault","d":"the sandbox broke, honest"}]}\n')

    def make_throw(self, scores, last_round):
        yield False
`
	if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte(bot), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := InstallTestHarness(dir); err != nil {
		t.Fatal(err)
	}
	cfg := PyConfig{Harness: "forty", Python: "/usr/bin/python3", CallTimeout: time.Second, StartTimeout: 20 * time.Second, MaxRestarts: 1}
	pool := NewPyPool(sandbox.Unsandboxed{}, cfg, []engine.Bot{{Entrant: engine.Entrant{Name: "Voider"}, Dir: dir}})
	defer pool.Close()
	r := pool.Exchange(context.Background(), []engine.Call{{Bot: 0, Game: 1, Method: "new", Args: map[string]int{"seat": 0}}})
	if r[0].Fault == nil || r[0].Fault.Outcome != engine.BadOutput {
		t.Fatalf("forged reply gave %+v, want a bad-output fault", r[0])
	}
	if c := pool.Stats(0).Counts(); c[engine.HostFault] != 0 {
		t.Errorf("host faults counted for the bot: %v", c)
	}
}

// A bot slower than the others, though within its per-call limit, holds every game up: past
// its run budget (CPU time where cgroups tell it) its calls are answered at once, as
// timeouts.
//
// The budget is ten times the process start-up's usual CPU (start-ups are charged to it) and
// fifteen calls' worth: unsandboxed, the runner charges wall time, and a busy host's
// start-up once took the whole of a 300 ms budget (0 calls answered).
func TestRunBudget(t *testing.T) {
	dir := t.TempDir()
	bot := "import time\nclass Slow(Bot):\n    def __init__(self, *a):\n        t = time.process_time()\n        while time.process_time() - t < 0.2:\n            pass\n        super().__init__(*a)\n"
	if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte(bot), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := InstallTestHarness(dir); err != nil {
		t.Fatal(err)
	}
	cfg := PyConfig{Harness: "forty", Python: "/usr/bin/python3", CallTimeout: time.Second, StartTimeout: 20 * time.Second, MaxRestarts: 1, Budget: 3 * time.Second}
	pool := NewPyPool(sandbox.Unsandboxed{}, cfg, []engine.Bot{{Entrant: engine.Entrant{Name: "Slow"}, Dir: dir}})
	defer pool.Close()
	var ok, over int
	for g := 0; g < 40; g++ {
		r := pool.Exchange(context.Background(), []engine.Call{{Bot: 0, Game: g, Method: "new", Args: map[string]int{"seat": 0}}})
		switch {
		case r[0].Fault == nil:
			ok++
		case r[0].Fault.Outcome == engine.Timeout:
			over++
		default:
			t.Fatalf("unexpected fault %v", r[0].Fault)
		}
	}
	if ok == 0 || over == 0 || ok > 20 {
		t.Fatalf("%d calls answered, %d cut off: the budget did not bound the bot", ok, over)
	}
}

// A bot that stops its own process (SIGSTOP) never reads its next request; one larger than
// the pipe buffer must not block the runner past the batch's deadline.
func TestStoppedBotDoesNotHangTheRunner(t *testing.T) {
	dir := t.TempDir()
	bot := `
import os, signal, threading, time
class Stopper(Bot):
    def __init__(self, *a):
        super().__init__(*a)
        def stop():
            time.sleep(0.3)
            os.kill(os.getpid(), signal.SIGSTOP)
        threading.Thread(target=stop, daemon=True).start()
`
	if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte(bot), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := InstallTestHarness(dir); err != nil {
		t.Fatal(err)
	}
	cfg := PyConfig{Harness: "forty", Python: "/usr/bin/python3", CallTimeout: time.Millisecond, StartTimeout: 20 * time.Second, MaxRestarts: 3}
	pool := NewPyPool(sandbox.Unsandboxed{}, cfg, []engine.Bot{{Entrant: engine.Entrant{Name: "Stopper"}, Dir: dir}})
	defer pool.Close()
	ctx := context.Background()
	pool.Exchange(ctx, []engine.Call{{Bot: 0, Game: 0, Method: "new", Args: map[string]int{"seat": 0}}})
	time.Sleep(time.Second) // the process is stopped now
	var big []engine.Call
	for g := 1; g <= 4000; g++ { // ~150 KB: more than a pipe holds
		big = append(big, engine.Call{Bot: 0, Game: g, Method: "new", Args: map[string]int{"seat": 0}})
	}
	done := make(chan []engine.Reply, 1)
	go func() { done <- pool.Exchange(ctx, big) }()
	select {
	case r := <-done:
		if r[0].Fault == nil || r[0].Fault.Outcome != engine.Timeout {
			t.Fatalf("a stopped bot's batch ended with %+v, want a timeout", r[0])
		}
	case <-time.After(cfg.batchDeadline(len(big)) + 10*time.Second):
		t.Fatal("the runner is still blocked writing to a stopped bot")
	}
}
