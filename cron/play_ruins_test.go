package cron

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kothd/kothd/engine/ruins"
	"github.com/kothd/kothd/publisher"
)

// The bundled Ruins snapshot through the whole cycle: broken answers are reported, the rest
// play four final games with three Drunkards filling the table.
func TestRuinsCycle(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cy := testCycle(t, dir)
	ch, err := cy.Config.Challenge("ruins")
	if err != nil {
		t.Fatal(err)
	}
	seed := uint64(5)
	rep, err := cy.Run(ctx, ch, Options{Seed: &seed, Games: 4})
	if err != nil {
		t.Fatal(err)
	}
	if rep.RunID == 0 || rep.Games != 4 || rep.Entered != 7 {
		t.Fatalf("report %+v", rep)
	}
	rejected := map[string]string{}
	for _, r := range rep.Rejected {
		rejected[r.Name] = r.Reason
	}
	for name, want := range map[string]string{
		"Cartographer":             "SyntaxError",
		"Some thoughts on bidding": "no code block",
		"GrabAndRun":               `duplicate bot name "GrabAndRun"`,
	} {
		if !strings.Contains(rejected[name], want) {
			t.Errorf("%s rejected with %q, want %q (all: %v)", name, rejected[name], want, rejected)
		}
	}
	md, err := os.ReadFile(filepath.Join(cy.Config.OutputDir, "ruins.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		publisher.Text("Seed: " + ruins.SeedString(seed) + " (derived from the run seed 5)"), // markdown-escaped
		"Filled up with 3 Drunkards",
		"| Score | Mean Score | Finals | 95 % interval | Faults |",
		"[DeepDiver](https://codegolf.stackexchange.com/a/", ") | Priya Raman |",
		"[LightFingers](https://codegolf.stackexchange.com/a/", ") | Lena Vogt | 0 | 0\\.000 | 4 |",
		"[Pickpocket](https://codegolf.stackexchange.com/a/", ") | Diego Salcedo | 0 | 0\\.000 | 4 |",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("leaderboard lacks %q", want)
		}
	}
	if t.Failed() || testing.Verbose() {
		t.Logf("leaderboard:\n%s", md)
	}
}
