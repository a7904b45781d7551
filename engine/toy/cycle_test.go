package toy_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/cron/crontest"
	"github.com/kothd/kothd/engine/all"
	"github.com/kothd/kothd/engine/toy"
)

// A sixth game through the whole cycle with real bot processes: engine/toy's folder, one
// registration line and a challenge in the config are all it takes. A bot that never
// answers by the rules fails validation with the harness's reason; the others and the
// baselines play, and a game of the run replays.
func TestToyGameCycle(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cy := crontest.NewCycle(t, dir)
	cy.Source = crontest.WriteSnapshot(t, filepath.Join(dir, "snap"), 177765, []string{
		"<h1>Nine</h1><pre><code>class Nine(Player):\n    def pick(self, round):\n        return 9\n</code></pre>",
		"<h1>Lucky</h1><pre><code>class Lucky(Player):\n    def pick(self, round):\n        return random.choice([7, 8, 10])\n</code></pre>",
		"<h1>Broken</h1><pre><code>class Broken(Player):\n    def pick(self, round):\n        return 'ten'\n</code></pre>",
	})
	cy.Games = all.Games()
	if err := cy.Games.Register(toy.Descriptor); err != nil { // the one line engine/all would get
		t.Fatal(err)
	}
	forty, _ := cy.Config.Challenge("forty")
	cy.Config.Challenges = []config.Challenge{{
		Name: "toy", Title: "Highest Unique", QuestionID: 177765, Engine: "toy", Baselines: true,
		Extract: config.Extract{Mode: "first-block", Language: "python3", MaxBytes: 65536},
		Limits:  forty.Limits,
	}}
	ch := &cy.Config.Challenges[0]
	crontest.Patient(ch) // its replays are compared
	seed := uint64(3)
	rep, err := cy.Run(ctx, ch, cron.Options{Seed: &seed, Games: 12})
	if err != nil {
		t.Fatal(err)
	}
	if rep.RunID == 0 || rep.Games != 12 || rep.Entered != 2 || len(rep.Rejected) != 1 || rep.Rejected[0].Name != "Broken" {
		t.Fatalf("report %+v (rejected %+v)", rep, rep.Rejected)
	}
	md, err := os.ReadFile(filepath.Join(cy.Config.OutputDir, "toy.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| Points |", "| Nine |", "| Ten<br>*baseline* |", "pick must return a whole number"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("leaderboard lacks %q:\n%s", want, md)
		}
	}
	crontest.ReplayTwice(t, cy, rep.RunID, 11, "round 5: picks ")
}
