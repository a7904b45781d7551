package whiteelephant

import (
	"math"
	"testing"

	"github.com/kothd/kothd/engine"
)

// Rescoring every game once gives the table's mean scores; voided games are not units.
func TestRescoreReproducesScores(t *testing.T) {
	bots := []engine.Entrant{{Name: "A"}, {Name: "B"}, {Name: "C"}}
	mk := func(scores ...float64) *game {
		return &game{members: []int{0, 1, 2}, score: scores, rounds: make([]int, 3), dq: make([]string, 3), faults: make([]int, 3)}
	}
	played := []*game{mk(60, 10, 30), mk(20, 61, 40), mk(70, 0, 5)}
	void := mk(0, 0, 100)
	void.void = "host fault"
	played = append(played, void)
	res := tabulate(bots, []int{0, 1, 2}, nil, played, true, 60)
	if res.Units != 3 {
		t.Fatalf("%d units, want the 3 scored games", res.Units)
	}
	got := res.Resample.Rescore([]int{0, 1, 2})
	for _, row := range res.Rows {
		if math.Abs(got[row.Bot]-row.Score) > 1e-9 {
			t.Errorf("%s: rescored %v, table %v", row.Bot, got[row.Bot], row.Score)
		}
	}
	if got := res.Resample.Rescore([]int{1, 1, 1}); got["B"] != 61 {
		t.Errorf("three copies of game 2 give B %v, want 61", got["B"])
	}
}
