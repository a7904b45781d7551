package mafia

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kothd/kothd/engine"
)

// Rescoring every game once gives the table's own scores; a resample gives others.
func TestRescoreReproducesScores(t *testing.T) {
	entrants := []engine.Entrant{{Name: "A"}, {Name: "B"}, {Name: "C"}, {Name: "D"}}
	r := rand.New(rand.NewPCG(1, 2))
	var games []GameResult
	for range 30 {
		g := GameResult{Outcome: []Outcome{VillageVictory, MafiaVictory, Abandoned}[r.IntN(3)], Roles: make([]Role, 4), Faults: make([]int, 4), Days: 3}
		g.Roles[r.IntN(4)] = Mafioso
		games = append(games, g)
	}
	games = append(games, GameResult{Outcome: Voided, Roles: make([]Role, 4), Faults: make([]int, 4)})
	res := Score(entrants, Lineup{Names: []string{"A", "B", "C", "D"}, Bots: 4}, games)
	if res.Units != res.Games || res.Resample == nil {
		t.Fatalf("units %d for %d scored games", res.Units, res.Games)
	}
	all := make([]int, res.Units)
	for i := range all {
		all[i] = i
	}
	got := res.Resample.Rescore(all)
	for _, row := range res.Rows {
		if math.Abs(got[row.Bot]-row.Score) > 1e-9 {
			t.Errorf("%s: rescored %v, table %v", row.Bot, got[row.Bot], row.Score)
		}
	}
	if first := res.Resample.Rescore(make([]int, res.Units)); first[res.Rows[0].Bot] == res.Rows[0].Score && first[res.Rows[3].Bot] == res.Rows[3].Score {
		t.Error("a resample of one game scored as the whole run")
	}
}
