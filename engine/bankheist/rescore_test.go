package bankheist

import (
	"testing"

	"github.com/kothd/kothd/engine"
)

// The publisher's unit is the tournament: rescoring every tournament once gives the
// summed credits of the table.
func TestRescoreReproducesScores(t *testing.T) {
	cfg := Config{Bots: []engine.Entrant{{Name: "A"}, {Name: "B"}}}
	mk := func(a, b int64) *tournament {
		return &tournament{bots: []*player{{bot: 0, credits: a}, {bot: 1, credits: b}}, order: []int{0, 1}, faults: make([]int, 2), played: 10}
	}
	res := table(cfg, []*tournament{mk(100, 50), mk(20, 90), mk(70, 70)})
	if res.Units != 3 || res.UnitName != "tournaments" {
		t.Fatalf("units %d %s", res.Units, res.UnitName)
	}
	got := res.Resample.Rescore([]int{0, 1, 2})
	for _, row := range res.Rows {
		if got[row.Bot] != row.Score {
			t.Errorf("%s: rescored %v, table %v", row.Bot, got[row.Bot], row.Score)
		}
	}
	if got := res.Resample.Rescore([]int{1, 1, 1}); got["B"] != 270 {
		t.Errorf("three copies of tournament 2 give B %v, want 270", got["B"])
	}
}
