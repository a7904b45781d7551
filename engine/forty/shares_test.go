package forty_test

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/cron/crontest"
	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/scraper"
)

// innocentForty needs 0.8 s of CPU on some of its calls (its per-call limit is 1 s): it
// times out only when something keeps it from the CPU, which is not its doing.
const innocentForty = `<h1>Innocent</h1><pre><code>import random, time
class Innocent(Bot):
    def make_throw(self, scores, last_round):
        if not getattr(self, "thought", False):
            self.thought = True
            if random.random() < 0.3:
                t = time.process_time()
                while time.process_time() - t < 0.8:
                    pass
        while sum(self.current_throws) < 12:
            yield True
        yield False
</code></pre>`

// spinnersForty is an answer of ten classes whose processes' first call forks four
// children that leave the bot's session and spin for ever.
func spinnersForty() string {
	var b strings.Builder
	b.WriteString("<h1>Spinners</h1><pre><code>import os\nforked = []\ndef fork_spinners():\n    for _ in range(4):\n        if os.fork() == 0:\n            os.setsid()\n            if os.fork() == 0:\n                while True:\n                    pass\n            os._exit(0)\n")
	for _, n := range []string{"S0", "S1", "S2", "S3", "S4", "S5", "S6", "S7", "S8", "S9"} {
		b.WriteString("class " + n + "(Bot):\n    def make_throw(self, scores, last_round):\n        if not forked:\n            forked.append(1)\n            fork_spinners()\n        yield False\n")
	}
	b.WriteString("</code></pre>")
	return b.String()
}

// An innocent bot's faults are the same with and without an answer of spinners in the
// field, same seed: the spinners' children die with each reply, the spinners' answer
// weighs on the CPUs as one answer, and a call the host kept from a CPU past its wall
// limit is not the bot's timeout. (Before: ten such classes took a forty run from 11 s to
// 79 s and gave an innocent bot of this kind 4 timeouts.)
func TestInnocentUnharmedBySpinners(t *testing.T) {
	ctx := context.Background()
	faults := func(withSpinners bool) (map[engine.Outcome]int, map[string]map[engine.Outcome]int) {
		dir := t.TempDir()
		bodies := []string{innocentForty, "<h1>Plain</h1><pre><code>class Plain(Bot):\n    def make_throw(self, scores, last_round):\n        yield True\n        yield False\n</code></pre>"}
		if withSpinners {
			bodies = append(bodies, spinnersForty())
		}
		crontest.WriteSnapshot(t, filepath.Join(dir, "snap"), 177765, bodies)
		cy := crontest.NewCycle(t, dir)
		cy.Source = scraper.Snapshot{Dir: filepath.Join(dir, "snap"), Site: "codegolf"}
		ch, _ := cy.Config.Challenge("forty")
		ch.Baselines = false
		seed := uint64(5)
		start := time.Now()
		rep, err := cy.Run(ctx, ch, cron.Options{Seed: &seed, Games: 10})
		if err != nil {
			t.Fatal(err)
		}
		rows, err := cy.Store.Standings(ctx, rep.RunID)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("spinners %v: the cycle took %v", withSpinners, time.Since(start).Round(time.Millisecond))
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
