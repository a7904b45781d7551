package whiteelephant_test

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/cron/crontest"
	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/scraper"
)

// innocentWE needs 0.8 s of CPU on some turns (its per-call limit is 1 s): it times out
// only when something keeps it from the CPU, which is not its doing. White Elephant
// disqualifies a bot at its first fault, so a timeout that is not its own costs it the
// game (once: in 4 games of 4, score 270 -> 50).
const innocentWE = `<h1>Innocent</h1><pre><code>import random, time
class Innocent(WhiteElephantBot):
    def take_turn(self, players, presents, just_stole):
        if random.random() < 0.1:
            t = time.process_time()
            while time.process_time() - t < 0.8:
                pass
        return None
</code></pre>`

// spinnersWE is an answer of ten classes whose processes' first turn forks four children
// that leave the bot's session and spin for ever.
func spinnersWE() string {
	var b strings.Builder
	b.WriteString("<h1>Spinners</h1><pre><code>import os\nforked = []\ndef fork_spinners():\n    for _ in range(4):\n        if os.fork() == 0:\n            os.setsid()\n            if os.fork() == 0:\n                while True:\n                    pass\n            os._exit(0)\n")
	for _, n := range []string{"S0", "S1", "S2", "S3", "S4", "S5", "S6", "S7", "S8", "S9"} {
		b.WriteString("class " + n + "(WhiteElephantBot):\n    def take_turn(self, players, presents, just_stole):\n        if not forked:\n            forked.append(1)\n            fork_spinners()\n        return None\n")
	}
	b.WriteString("</code></pre>")
	return b.String()
}

// An innocent bot's faults (and so its disqualifications) are the same with and without
// an answer of spinners in the field, same seed.
func TestInnocentUnharmedBySpinners(t *testing.T) {
	ctx := context.Background()
	faults := func(withSpinners bool) (map[engine.Outcome]int, map[string]map[engine.Outcome]int) {
		dir := t.TempDir()
		bodies := []string{innocentWE, "<h1>Plain</h1><pre><code>class Plain(WhiteElephantBot):\n    def take_turn(self, players, presents, just_stole):\n        return None\n</code></pre>"}
		if withSpinners {
			bodies = append(bodies, spinnersWE())
		}
		crontest.WriteSnapshot(t, filepath.Join(dir, "snap"), 169235, bodies)
		cy := crontest.NewCycle(t, dir)
		cy.Source = scraper.Snapshot{Dir: filepath.Join(dir, "snap"), Site: "codegolf"}
		ch, err := cy.Config.Challenge("whiteelephant")
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal([]byte("winning_score: 40\n"), &ch.Options); err != nil {
			t.Fatal(err)
		}
		ch.Baselines = false
		ch.Games = 2
		seed := uint64(4)
		start := time.Now()
		rep, err := cy.Run(ctx, ch, cron.Options{Seed: &seed})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("spinners %v: the cycle took %v", withSpinners, time.Since(start).Round(time.Millisecond))
		rows, err := cy.Store.Standings(ctx, rep.RunID)
		if err != nil {
			t.Fatal(err)
		}
		all := map[string]map[engine.Outcome]int{}
		for _, r := range rows {
			f := map[engine.Outcome]int{}
			for o, n := range r.Faults {
				if o != engine.OK {
					f[o] = n
				}
			}
			all[r.Bot] = f
		}
		if _, ok := all["Innocent"]; !ok {
			t.Fatalf("the innocent bot is not in the standings: %v (rejected %+v)", all, rep.Rejected)
		}
		return all["Innocent"], all
	}
	alone, _ := faults(false)
	beside, all := faults(true)
	t.Logf("the innocent bot's faults alone: %v; beside the spinners: %v (all: %v)", alone, beside, all)
	if len(all) != 12 {
		t.Errorf("%d bots played beside the spinners, want 12", len(all))
	}
	if !reflect.DeepEqual(alone, beside) {
		t.Errorf("the innocent bot's faults: %v alone, %v beside the spinners", alone, beside)
	}
}
