package main

import (
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/cron"
)

// A run's games are those it played, scored or not: Mafia's abandoned games (its longest)
// took their decisions and CPU, so rates and per-game figures count them, as the yardstick,
// told to play as many, counts every game it plays.
func TestBenchCountsGamesPlayed(t *testing.T) {
	r := &cron.Report{Challenge: "mafia", Games: 3, Played: 4}
	res := newBenchResult(r, playMeasure{Wall: 2 * time.Second, Decisions: 4000}, "none")
	if res.Games != 4 || res.Scored != 3 || res.GamesPerSec != 2 {
		t.Fatalf("games %d, scored %d, %v games/s; want 4, 3, 2", res.Games, res.Scored, res.GamesPerSec)
	}
	var b strings.Builder
	res.print(&b)
	if !strings.Contains(b.String(), "4 games, 3 scored") || !strings.Contains(b.String(), "1000.0 per game") {
		t.Fatalf("report:\n%s", b.String())
	}
}
