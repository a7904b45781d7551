package publisher

import (
	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/internal/stats"
)

// The statistics live in package stats; these tests feed it engine results, as the board
// and the adaptive stop do.

type analysis = stats.Analysis

// analyse is the board's analysis of a result.
func analyse(res *engine.Result, seed uint64) *analysis {
	return stats.Analyse(res.StatsTable(), seed, stats.Confidence)
}

func unsettled(res *engine.Result, seed uint64, confidence float64) [][2]int {
	return stats.Unsettled(res.StatsTable(), seed, confidence)
}

// above restates stats' order on two rows: i's interval lies wholly above j's and i
// scored more.
func above(res *engine.Result, lo, hi []float64, i, j int) bool {
	return lo[i] > hi[j] && res.Rows[i].Score > res.Rows[j].Score
}
