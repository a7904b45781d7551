package pyclass

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/runner/sandbox"
)

// poolRun is what a pool answered over a few batches of "new" calls, one per bot each.
type poolRun struct {
	Replies  [][]string // per batch, per call: the result, or the fault's outcome and detail
	Counts   []map[engine.Outcome]int
	Restarts []int
}

// playPool plays batches batches of "new" calls to every bot of a fresh pool, loaded
// first (Load) or not; check, if set, looks at the pool after Load.
func playPool(t *testing.T, cfg PyConfig, bots []engine.Bot, load bool, batches int, check func(*PyPool)) poolRun {
	t.Helper()
	pool := NewPyPool(sandbox.Unsandboxed{}, cfg, bots)
	defer pool.Close()
	if load {
		pool.Load(context.Background())
		if check != nil {
			check(pool)
		}
	}
	var o poolRun
	for game := range batches {
		var calls []engine.Call
		for i := range bots {
			calls = append(calls, engine.Call{Bot: i, Game: game, Method: "new", Args: map[string]int{"seat": i}})
		}
		var got []string
		for _, r := range pool.Exchange(context.Background(), calls) {
			if r.Fault != nil {
				got = append(got, fmt.Sprintf("%s: %s (died %v)", r.Fault.Outcome, r.Fault.Detail, r.Fault.ProcessDied))
			} else {
				got = append(got, string(r.Result))
			}
		}
		o.Replies = append(o.Replies, got)
	}
	for i := range bots {
		o.Counts = append(o.Counts, pool.Stats(i).Counts())
		o.Restarts = append(o.Restarts, pool.bots[i].restarts)
	}
	return o
}

// answerDirs makes a directory holding each answer as bot.py, with the harness.
func answerDirs(t *testing.T, names []string, answers map[string]string) []engine.Bot {
	t.Helper()
	var bots []engine.Bot
	for _, name := range names {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte(answers[name]), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := InstallTestHarness(dir); err != nil {
			t.Fatal(err)
		}
		bots = append(bots, engine.Bot{Entrant: engine.Entrant{Name: name}, Dir: dir})
	}
	return bots
}

// Loading a pool (Load) starts every bot's process before the first batch, and a run
// played after it is the run played with lazy starts: the same replies, the same faults
// counted, the same restarts. A start that fails at Load answers the bot's first batch
// (it is not tried twice), and the next batch starts the process again as it would have.
func TestLoadStartsAheadAsTheFirstBatchWould(t *testing.T) {
	bots := answerDirs(t, []string{"Good", "Broken"}, map[string]string{
		"Good": `
class Good(Bot):
    def make_throw(self, scores, last_round):
        yield False
`,
		"Broken": `
raise RuntimeError("the answer fails as it is executed")
`,
	})
	cfg := PyConfig{Harness: "forty", Python: "/usr/bin/python3", CallTimeout: time.Second, StartTimeout: 20 * time.Second, MaxRestarts: 2}
	lazy := playPool(t, cfg, bots, false, 4, nil)
	loaded := playPool(t, cfg, bots, true, 4, func(pool *PyPool) {
		if pool.bots[0].proc == nil {
			t.Fatal("Load left the good bot's process unstarted")
		}
		if pool.bots[1].proc != nil || pool.bots[1].startFault == nil {
			t.Fatalf("Load: the broken bot's process %v, its start's fault %v", pool.bots[1].proc, pool.bots[1].startFault)
		}
	})
	if !reflect.DeepEqual(lazy, loaded) {
		t.Errorf("a loaded pool played otherwise than a lazy one:\nlazy   %+v\nloaded %+v", lazy, loaded)
	}
	if lazy.Restarts[1] != cfg.MaxRestarts+1 || lazy.Replies[3][1] == lazy.Replies[0][1] {
		// The broken bot was started until given up on: the comparison above saw it all.
		t.Errorf("the broken bot's starts: %d, its replies %q", lazy.Restarts[1], lazy.Replies)
	}
}

// A start that spends the bot's budget is told as a lazy start at the first batch tells
// it (the budget's fault, the process ended for it), not as a batch refused for a budget
// already spent: Load's start passed the budget check the first batch would have made
// before it.
func TestLoadSpendingTheBudgetAsTheFirstBatchWould(t *testing.T) {
	bots := answerDirs(t, []string{"Slow"}, map[string]string{"Slow": `
import time
time.sleep(1.5)

class Slow(Bot):
    def make_throw(self, scores, last_round):
        yield False
`})
	cfg := PyConfig{Harness: "forty", Python: "/usr/bin/python3", CallTimeout: time.Second, StartTimeout: 20 * time.Second, MaxRestarts: 2,
		Budget: 200 * time.Millisecond}
	lazy, loaded := playPool(t, cfg, bots, false, 2, nil), playPool(t, cfg, bots, true, 2, nil)
	if !reflect.DeepEqual(lazy, loaded) {
		t.Errorf("a loaded pool played otherwise than a lazy one:\nlazy   %+v\nloaded %+v", lazy, loaded)
	}
	if first := lazy.Replies[0][0]; !strings.HasPrefix(first, "timeout") || first == lazy.Replies[1][0] {
		t.Errorf("the slow bot's replies: %q", lazy.Replies)
	}
}
