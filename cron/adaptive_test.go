package cron_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/cron/crontest"
	"github.com/kothd/kothd/publisher"
	"github.com/kothd/kothd/scraper"
)

// adaptiveCycle is a fake-game cycle over the given bots (class names) with the forty
// challenge made adaptive: a budget of budget games looked at every batch games.
func adaptiveCycle(t *testing.T, bots []string, budget int, a *config.Adaptive) (*cron.Cycle, *config.Challenge) {
	t.Helper()
	dir := t.TempDir()
	var bodies []string
	for _, b := range bots {
		bodies = append(bodies, fmt.Sprintf("<h1>%s</h1><pre><code>class %s(Bot):\n    pass\n</code></pre>", b, b))
	}
	crontest.WriteSnapshot(t, filepath.Join(dir, "snap"), 177765, bodies)
	cy := withFakeGame(t, crontest.NewCycle(t, dir))
	cy.Source = scraper.Snapshot{Dir: filepath.Join(dir, "snap"), Site: "codegolf"}
	ch, _ := cy.Config.Challenge("forty")
	ch.Baselines, ch.Games, ch.Adaptive = false, budget, a
	return cy, ch
}

// published reads the board the run wrote: its JSON and its page.
func published(t *testing.T, cy *cron.Cycle) (*publisher.Board, string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(cy.Config.OutputDir, "forty.json"))
	if err != nil {
		t.Fatal(err)
	}
	var b publisher.Board
	if err := json.Unmarshal(raw, &b); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(cy.Config.OutputDir, "forty.md"))
	if err != nil {
		t.Fatal(err)
	}
	return &b, string(md)
}

// Clearly different bots settle their order at the first look allowed (min_games; few looks,
// so that each is tested at a level the bootstrap's 1,000 resamples can reach), and the
// board says so; the same seed stops at the same game.
func TestAdaptiveStopsWhenSettled(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cy, ch := adaptiveCycle(t, []string{"Skill0Low", "Skill40Mid", "Skill80High"}, 600, &config.Adaptive{Batch: 300, MinGames: 300})
	seed := uint64(7)
	var out strings.Builder
	cy.Out = &out
	rep, err := cy.Run(ctx, ch, cron.Options{Seed: &seed})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "forty: Ended: order settled at 95 % after 300 games") {
		t.Errorf("the console does not say how the run ended:\n%s", out.String())
	}
	if rep.Games != 300 {
		t.Fatalf("played %d games, want 300 (settled at the first look after min_games)", rep.Games)
	}
	b, md := published(t, cy)
	e := b.Run.Ending
	if e == nil || e.Reason != publisher.EndSettled || e.Games != 300 || e.Budget != 600 || e.Confidence != 0.95 || e.Batch != 300 || e.MinGames != 300 || len(e.Overlaps) != 0 {
		t.Errorf("ending %+v", e)
	}
	if b.Run.Games != 300 || b.Rows[0].Bot != "Skill80High" || b.Rows[2].Bot != "Skill0Low" || b.Rows[0].TieGroup != [2]int{1, 1} {
		t.Errorf("board: %d games, rows %+v", b.Run.Games, b.Rows)
	}
	if !strings.Contains(md, "Ended: order settled at 95 % after 300 games (budget 600).") {
		t.Errorf("the page does not say how the run ended:\n%s", md)
	}
	run, err := cy.Store.GetRun(ctx, rep.RunID)
	if err != nil || run.GamesPlayed != 300 || run.GamesPlanned != 600 {
		t.Errorf("stored run: %+v, %v", run, err)
	}
	// Its games replay; the games after the stop were never played.
	var trace strings.Builder
	if err := cy.Replay(ctx, rep.RunID, 299, &trace); err != nil || !strings.Contains(trace.String(), "Skill80High") {
		t.Errorf("replay of game 299: %v\n%s", err, trace.String())
	}
	if err := cy.Replay(ctx, rep.RunID, 300, io.Discard); err == nil || !strings.Contains(err.Error(), "games 0 to 299") {
		t.Errorf("replay of game 300, after the stop: %v", err)
	}

	// The same seed: the same games, the same table.
	again, err := cy.Run(ctx, ch, cron.Options{Seed: &seed})
	if err != nil {
		t.Fatal(err)
	}
	first, _ := cy.Store.Standings(ctx, rep.RunID)
	second, _ := cy.Store.Standings(ctx, again.RunID)
	if again.Games != 300 || fmt.Sprint(first) != fmt.Sprint(second) {
		t.Errorf("same seed: %d games, standings %v then %v", again.Games, first, second)
	}

	// A stricter level, a later first look: the board's level and count follow the config.
	ch.Adaptive = &config.Adaptive{Confidence: 0.99, Batch: 150, MinGames: 400}
	rep, err = cy.Run(ctx, ch, cron.Options{Seed: &seed})
	if err != nil {
		t.Fatal(err)
	}
	if b, md := published(t, cy); rep.Games != 450 || b.Run.Ending.Confidence != 0.99 || !strings.Contains(md, "Ended: order settled at 99 % after 450 games") {
		t.Errorf("stricter: %d games, ending %+v", rep.Games, b.Run.Ending)
	}

	// The block is part of what a run plays: unchanged, the next cycle skips; changed, it
	// plays again.
	if rep, err := cy.Run(ctx, ch, cron.Options{}); err != nil || rep.RunID != 0 {
		t.Errorf("nothing changed, yet: %+v, %v", rep, err)
	}
	ch.Adaptive = &config.Adaptive{Confidence: 0.99, Batch: 150, MinGames: 600}
	if rep, err := cy.Run(ctx, ch, cron.Options{}); err != nil || rep.RunID == 0 || rep.Games != 600 {
		t.Errorf("a changed adaptive block did not play again (600 games): %+v, %v", rep, err)
	}
}

// Bots of equal strength never settle: the run plays its whole budget, and the board
// says which ranks still overlap. Without the block, a run says nothing of its ending.
func TestAdaptivePlaysTheBudgetWhenUnsettled(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cy, ch := adaptiveCycle(t, []string{"Alpha", "Bravo", "Charlie", "Delta"}, 600, &config.Adaptive{Batch: 100, MinGames: 100})
	seed := uint64(7)
	rep, err := cy.Run(ctx, ch, cron.Options{Seed: &seed})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Games != 600 {
		t.Fatalf("played %d games, want the budget of 600", rep.Games)
	}
	b, md := published(t, cy)
	e := b.Run.Ending
	if e == nil || e.Reason != publisher.EndBudget || e.Games != 600 || len(e.Overlaps) == 0 {
		t.Fatalf("ending %+v", e)
	}
	// The overlaps are the board's tie groups (both at 95 %).
	for _, o := range e.Overlaps {
		found := false
		for _, r := range b.Rows {
			found = found || r.TieGroup == o
		}
		if !found {
			t.Errorf("overlap %v is no tie group of the board %+v", o, b.Rows)
		}
	}
	if !strings.Contains(md, "Ended: game budget (600) spent, ranks ") || !strings.Contains(md, " still overlap at 95 %.") {
		t.Errorf("the page does not say the budget ended the run:\n%s", md)
	}

	ch.Adaptive = nil
	if _, err := cy.Run(ctx, ch, cron.Options{Seed: &seed}); err != nil {
		t.Fatal(err)
	}
	if b, md := published(t, cy); b.Run.Ending != nil || strings.Contains(md, "Ended:") {
		t.Errorf("a run of fixed length has an ending: %+v", b.Run.Ending)
	}
}
