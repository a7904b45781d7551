package pyclass

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/runner/sandbox"
)

// Loading a pool (Load) starts every bot's process before the first batch, and a run
// played after it is the run played with lazy starts: the same replies, the same faults
// counted, the same restarts. A start that fails at Load answers the bot's first batch
// (it is not tried twice), and the next batch starts the process again as it would have.
func TestLoadStartsAheadAsTheFirstBatchWould(t *testing.T) {
	answers := map[string]string{
		"Good": `
class Good(Bot):
    def make_throw(self, scores, last_round):
        yield False
`,
		"Broken": `
raise RuntimeError("the answer fails as it is executed")
`,
	}
	bots := make([]engine.Bot, 0, 2)
	for _, name := range []string{"Good", "Broken"} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte(answers[name]), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := InstallTestHarness(dir); err != nil {
			t.Fatal(err)
		}
		bots = append(bots, engine.Bot{Entrant: engine.Entrant{Name: name}, Dir: dir})
	}
	cfg := PyConfig{Harness: "forty", Python: "/usr/bin/python3", CallTimeout: time.Second, StartTimeout: 20 * time.Second, MaxRestarts: 2}
	batch := func(game int) []engine.Call {
		return []engine.Call{
			{Bot: 0, Game: game, Method: "new", Args: map[string]int{"seat": 0}},
			{Bot: 1, Game: game, Method: "new", Args: map[string]int{"seat": 1}},
		}
	}
	type outcome struct {
		Replies  [][]string // per batch, per call: the result, or the fault's outcome and detail
		Counts   [2]map[engine.Outcome]int
		Restarts [2]int
	}
	play := func(load bool) outcome {
		pool := NewPyPool(sandbox.Unsandboxed{}, cfg, bots)
		defer pool.Close()
		if load {
			pool.Load(context.Background())
			if pool.bots[0].proc == nil {
				t.Fatal("Load left the good bot's process unstarted")
			}
			if pool.bots[1].proc != nil || pool.bots[1].startFault == nil {
				t.Fatalf("Load: the broken bot's process %v, its start's fault %v", pool.bots[1].proc, pool.bots[1].startFault)
			}
		}
		var o outcome
		for game := range 4 {
			var got []string
			for _, r := range pool.Exchange(context.Background(), batch(game)) {
				if r.Fault != nil {
					got = append(got, string(r.Fault.Outcome)+": "+r.Fault.Detail)
				} else {
					got = append(got, string(r.Result))
				}
			}
			o.Replies = append(o.Replies, got)
		}
		for i := range o.Counts {
			o.Counts[i] = pool.Stats(i).Counts()
			o.Restarts[i] = pool.bots[i].restarts
		}
		return o
	}
	lazy, loaded := play(false), play(true)
	if !reflect.DeepEqual(lazy, loaded) {
		t.Errorf("a loaded pool played otherwise than a lazy one:\nlazy   %+v\nloaded %+v", lazy, loaded)
	}
	if lazy.Restarts[1] != cfg.MaxRestarts+1 || lazy.Replies[3][1] == lazy.Replies[0][1] {
		// The broken bot was started until given up on: the comparison above saw it all.
		t.Errorf("the broken bot's starts: %d, its replies %q", lazy.Restarts[1], lazy.Replies)
	}
}
