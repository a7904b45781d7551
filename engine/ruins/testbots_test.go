package ruins_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/cron/crontest"
	"go.yaml.in/yaml/v3"
)

// The original controller's own test bots (§5.4), as Python classes of one answer, in its
// loading order.
const originalTestBots = `import math

class EagerThief(Adventurer):
    def get_action(self, state):
        carry = sum(t.weight for t in state.inventory)
        cost = 10 + math.ceil(carry / 5)
        if state.stamina // cost <= state.room + 1:
            return 'previous'
        if state.treasures and carry + state.treasures[0].weight < 50:
            return 'take', 0, state.treasures[0].weight + self.random.randrange(2 * len(state.players) + 1)
        return 'next'

class EmoKid(Adventurer):
    def get_action(self, state):
        return 'drop', 0

class Chad(Adventurer):
    def get_action(self, state):
        return 'next'

class Coward(Adventurer):
    def get_action(self, state):
        return 'previous'

class GreedyBastard(Adventurer):
    def get_action(self, state):
        if state.treasures:
            return 'take', 0, state.treasures[0].weight + 5
        return 'next'

class MischievousKid(Adventurer):
    def get_action(self, state):
        return ['take', '5', '1']

class EagerClone0(EagerThief): pass
class EagerClone1(EagerThief): pass
class EagerClone2(EagerThief): pass
class EagerClone3(EagerThief): pass
class EagerClone4(EagerThief): pass
class EagerClone5(EagerThief): pass
`

// §7.6 through the whole cycle: the original test bots, as an answer, validated and played
// in real processes under bwrap with the seed string K48XMESC, give the original
// controller's table. MischievousKid answers an invalid action on its first turn of every
// game, which the rules answer by its death: it is play, so it enters (validation once
// refused it, and the table of the eleven others no longer matched the original's).
func TestOriginalTestBotsTable(t *testing.T) {
	if testing.Short() {
		t.Skip("353 games of twelve bots in real processes")
	}
	t.Parallel()
	dir := t.TempDir()
	cy := crontest.NewCycle(t, dir)
	body := "<h1>The test bots</h1>\n\n<pre><code>" + strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(originalTestBots) + "</code></pre>\n"
	cy.Source = crontest.WriteSnapshot(t, filepath.Join(dir, "snap"), 183101, []string{body})
	ch, err := cy.Config.Challenge("ruins")
	if err != nil {
		t.Fatal(err)
	}
	crontest.Patient(ch)
	ch.Limits.ClassesPerAnswer = 12
	if err := yaml.Unmarshal([]byte("seed_string: K48XMESC"), &ch.Options); err != nil {
		t.Fatal(err)
	}
	seed := uint64(1)
	rep, err := cy.Run(context.Background(), ch, cron.Options{Seed: &seed})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Entered != 12 || len(rep.Rejected) != 0 {
		t.Fatalf("entered %d, not entered %+v", rep.Entered, rep.Rejected)
	}
	run, err := cy.Store.GetRun(context.Background(), rep.RunID)
	if err != nil || run.Result == nil {
		t.Fatalf("run %+v: %v", run, err)
	}
	var b strings.Builder
	for _, r := range run.Result.Rows {
		// Score, Mean Score, final games, pool score (engine/ruins vectors_test.go)
		fmt.Fprintf(&b, "%s %s\n", r.Bot, strings.Join(r.Cells[:min(len(r.Cells), 4)], " "))
		if r.Bot == "MischievousKid" && r.Errors != 20 {
			t.Errorf("MischievousKid faults = %d, want 20 (one per pool game)", r.Errors)
		}
	}
	want := `EagerThief 2369 7.201 329 140
EagerClone3 2319 7.049 329 145
EagerClone4 2315 7.036 329 168
EagerClone2 2304 7.003 329 151
EagerClone5 2276 6.918 329 154
EagerClone1 2274 6.912 329 144
EagerClone0 2252 6.845 329 153
EmoKid 0 0.000 329 0
Chad 0 0.000 329 0
Coward 0 0.000 329 0
GreedyBastard – – 0 0
MischievousKid – – 0 0`
	if got := strings.TrimSpace(b.String()); got != want || run.Result.Games != 24+329 {
		t.Errorf("%d games, table:\n%s\nwant 353 games, the original's:\n%s", run.Result.Games, got, want)
	}
}
