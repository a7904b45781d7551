package forty_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/cron/crontest"
)

// The forty game through the whole cycle with real bot processes: broken answers are
// reported, a game of the run replays alone (the same twice), and the same seed gives
// the same standings (the bots' seeds reach their processes). Five answers of the
// snapshot (one entering two bots, one without code, one that does not compile, one
// entering a name already taken), no baselines and ten games: every bot process costs,
// and the cycle's bookkeeping is the fake game's tests' in cron (TestCycleSkipsUnchanged
// and the others); what this adds is real bots in the real sandbox.
func TestFortyCycle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cy := crontest.NewCycle(t, t.TempDir())
	cy.Source = crontest.SnapshotOnly(t, 177765, 177771, 177790, 178040, 178066, 178093)
	ch, _ := cy.Config.Challenge("forty")
	ch.Baselines = false
	crontest.Patient(ch)
	seed := uint64(99)
	rep, err := cy.Run(ctx, ch, cron.Options{Seed: &seed, Games: 10})
	if err != nil {
		t.Fatal(err)
	}
	if rep.RunID == 0 || rep.Games != 10 {
		t.Fatalf("report %+v", rep)
	}
	md, err := os.ReadFile(filepath.Join(cy.Config.OutputDir, "forty.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| # | Bot | Win% (95 % interval) |", "| # | Bot | Win% | Wins | Played | Max | Avg | Avg win | Throws | Success% | Faults |", "seed `99`", "## Not entered", "no code block in the answer", "duplicate bot name"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("leaderboard lacks %q", want)
		}
	}
	first, _ := cy.Store.Standings(ctx, rep.RunID)

	var a, b strings.Builder
	if err := cy.Replay(ctx, rep.RunID, 7, &a); err != nil {
		t.Fatal(err)
	}
	if err := cy.Replay(ctx, rep.RunID, 7, &b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"game 7", "seat 0: ", "pass 1, seat 0: throws", "points"} {
		if !strings.Contains(a.String(), want) {
			t.Errorf("trace lacks %q:\n%s", want, a.String())
		}
	}
	if a.String() != b.String() {
		t.Errorf("two replays differ:\n%s\n---\n%s", a.String(), b.String())
	}

	// The same seed again: the same standings.
	rep3, err := cy.Run(ctx, ch, cron.Options{Seed: &seed, Games: 10})
	if err != nil {
		t.Fatal(err)
	}
	third, _ := cy.Store.Standings(ctx, rep3.RunID)
	for i := range first {
		first[i].FirstFault, third[i].FirstFault = "", "" // exception texts may name temp paths
	}
	if !reflect.DeepEqual(first, third) {
		t.Errorf("same seed, different standings:\n%+v\n%+v", first, third)
	}
}
