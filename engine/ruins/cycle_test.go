package ruins_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/cron/crontest"
	"github.com/kothd/kothd/engine/ruins"
	"github.com/kothd/kothd/publisher"
)

// The bundled Ruins snapshot through the whole cycle with real bot processes: broken
// answers are reported, the rest play four final games with three Drunkards filling the
// table.
func TestRuinsCycle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cy := crontest.NewCycle(t, t.TempDir())
	ch, err := cy.Config.Challenge("ruins")
	if err != nil {
		t.Fatal(err)
	}
	seed := uint64(5)
	rep, err := cy.Run(ctx, ch, cron.Options{Seed: &seed, Games: 4})
	if err != nil {
		t.Fatal(err)
	}
	if rep.RunID == 0 || rep.Games != 4 || rep.Entered != 6 {
		t.Fatalf("report %+v", rep)
	}
	rejected := map[string]string{}
	for _, r := range rep.Rejected {
		rejected[r.Name] = r.Reason
	}
	for name, want := range map[string]string{
		"Cartographer": "SyntaxError",
		// Its one branch raises on every decision it is asked in validation (and in a
		// run): not entered, with the fault and the input that caused it.
		"LightFingers":             "it faulted on every one of its 3 decisions in a validation game; the first: crash: bot.py line 9 in get_action: return 'take', i, best.wieght + 1\nAttributeError: 'Treasure' object has no attribute 'wieght'\ninput: act {\"s\":",
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
		"Filled up with 4 Drunkards", // six answers and four Drunkards: a table of ten
		"| Score | Mean Score | Finals | Faults |",
		"[DeepDiver](https://codegolf.stackexchange.com/a/", ")<br>by Priya Raman |",
		"[Pickpocket](https://codegolf.stackexchange.com/a/", ")<br>by Diego Salcedo |", "| Pickpocket | 0 | 0.000 | 4 |",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("leaderboard lacks %q", want)
		}
	}
	if t.Failed() || testing.Verbose() {
		t.Logf("leaderboard:\n%s", md)
	}
}

// Ruins with a pool phase (tables of four for seven bots): pool games come first in the
// numbering, then the finals, whose replay plays the pool again to find the finalists.
func TestReplayRuins(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cy := crontest.NewCycle(t, t.TempDir())
	runID := crontest.RunFor(t, cy, "ruins", "game_size: 4\npool_games: 2\nlead: 1000\n", 2, 7)
	run, err := cy.Store.GetRun(ctx, runID)
	if err != nil || run.Result == nil {
		t.Fatalf("run %+v: %v", run, err)
	}
	n := run.Result.Games + run.Result.Voided
	if n < 3 {
		t.Fatalf("%d games counted", n)
	}
	crontest.ReplayTwice(t, cy, runID, 0, "pool game 1 of ", "seat 0: ", "seat 3: ", "Turn 1:", "moved into room #", "Ranking:", "points")
	crontest.ReplayTwice(t, cy, runID, n-1, "final game ", "Finalists (pool score): ", "seat 3: ", "Turn 1:", "Ranking:")
	crontest.OutOfRange(t, cy, runID, n)

	// The finals are the last two games: their points add up to the run's scores.
	points := map[string]int{}
	for _, game := range []int{n - 2, n - 1} {
		var b strings.Builder
		if err := cy.Replay(ctx, runID, game, &b); err != nil {
			t.Fatal(err)
		}
		_, ranking, _ := strings.Cut(b.String(), "Ranking:\n")
		for _, line := range strings.Split(strings.TrimSpace(ranking), "\n") {
			open, close := strings.Index(line, " ("), strings.Index(line, "): ")
			var p int
			fmt.Sscanf(line[strings.LastIndex(line, ": ")+2:], "%d points", &p)
			points[line[open+2:close]] += p
		}
	}
	finalists := 0
	for _, r := range run.Result.Rows {
		if r.Cells[0] == "–" {
			continue // eliminated in the pool
		}
		finalists++
		if float64(points[r.Bot]) != r.Score {
			t.Errorf("%s: %d points in the replayed finals, %v in the run", r.Bot, points[r.Bot], r.Score)
		}
	}
	if finalists != 4 {
		t.Errorf("%d finalists in the run's table", finalists)
	}
	crontest.NoCopiesLeft(t, cy)
}
