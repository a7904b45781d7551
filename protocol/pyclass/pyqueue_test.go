package pyclass

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kothd/kothd/sandbox"

	"github.com/kothd/kothd/engine"
)

// A batch queued behind one whose process dies (and so possibly written ahead into the dead
// process's pipe) is answered by the restarted process, and the batch after it too.
func TestQueuedBatchSurvivesACrash(t *testing.T) {
	dir := t.TempDir()
	bot := `
import os, time
class Crasher(Bot):
    def __init__(self, index, end_score):
        super().__init__(index, end_score)
        if index == 7:
            time.sleep(0.2)
            os._exit(3)
`
	if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte(bot), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := InstallTestHarness(dir); err != nil {
		t.Fatal(err)
	}
	cfg := PyConfig{Harness: "forty", Python: "/usr/bin/python3", CallTimeout: time.Second, StartTimeout: 20 * time.Second, MaxRestarts: 3}
	pool := NewPyPool(sandbox.Unsandboxed{}, cfg, []engine.Bot{{Entrant: engine.Entrant{Name: "Crasher"}, Dir: dir}})
	defer pool.Close()
	ctx := context.Background()
	seat := func(g, s int) []engine.Call {
		return []engine.Call{{Bot: 0, Game: g, Method: "new", Args: map[string]int{"seat": s}}}
	}
	a := pool.Send(ctx, seat(0, 7))
	b := pool.Send(ctx, seat(1, 0))
	c := pool.Send(ctx, seat(2, 1))
	if r := a(); r[0].Fault == nil || r[0].Fault.Outcome != engine.Crash || !r[0].Fault.ProcessDied {
		t.Fatalf("the crashing batch ended with %+v, want a crash", r[0])
	}
	for i, r := range [][]engine.Reply{b(), c()} {
		if r[0].Fault != nil || string(r[0].Result) != "true" {
			t.Fatalf("batch %d queued behind the crash ended with %+v, want an answer", i+1, r[0])
		}
	}
	if n := pool.bots[0].restarts; n != 2 {
		t.Errorf("%d processes started, want 2", n)
	}
}
