package whiteelephant_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/cron/crontest"
)

// White Elephant's invalid answers are play too: a take_turn answer the driver's test
// cannot read (an unhashable list) is resolved by the rules, which open a present (§4), so
// a bot that answers only that enters; one whose every turn raises cannot play and does
// not. Through `kothd check`'s path (the cycle's validation), real processes under bwrap.
func TestValidationTakesRulesAnswersAsPlay(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cy := crontest.NewCycle(t, dir)
	cy.Source = crontest.WriteSnapshot(t, filepath.Join(dir, "snap"), 169235, []string{
		"<h1>ListBot</h1><pre><code>class ListBot(WhiteElephantBot):\n    def take_turn(self, players, presents, just_stole):\n        return [1, 2]\n</code></pre>",
		"<h1>Raiser</h1><pre><code>class Raiser(WhiteElephantBot):\n    def take_turn(self, players, presents, just_stole):\n        raise ValueError('no')\n</code></pre>",
	})
	ch, err := cy.Config.Challenge("whiteelephant")
	if err != nil {
		t.Fatal(err)
	}
	crontest.Patient(ch)
	for id, want := range map[int64]string{169236: cron.WouldEnter, 169237: "faulted on every one of its"} {
		rep, err := cy.Check(context.Background(), ch, id)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Bots) != 1 || !strings.Contains(rep.Bots[0].Status+" "+rep.Bots[0].Reason, want) {
			t.Errorf("answer %d: %+v, want %q", id, rep.Bots, want)
		}
	}
}
