// Package stats holds the board's statistics: simultaneous intervals on a table's scores
// (Wilson for win rates, a bootstrap over the run's units otherwise) and the rank ranges
// they allow. Both the board (publisher) and play (an adaptive run stops when its order is
// settled, cron) ask it, so it is a leaf: it imports nothing of the project, and callers
// hand it a Table (engine.Result.StatsTable makes one).
package stats

import (
	"cmp"
	"math"
	"math/rand/v2"
)

// Table is what the statistics read of a run's result: the rows, sorted best first as
// engines give them, and how noisy their scores are (see engine.Result's fields of the
// same names).
type Table struct {
	Rows     []Row
	Games    int       // games played and scored
	WinRate  bool      // Score is 100·Wins/Played over independent games: Wilson intervals
	Units    int       // independent units of play the bootstrap resamples
	UnitName string    // "games", "tournaments"; "games" when empty
	Resample Resampler // rescoring for the bootstrap; nil: none
}

// Row is one bot's line of a Table.
type Row struct {
	Bot          string
	Score        float64
	Wins, Played int
}

// Resampler returns every row's Score, by Bot, as if the run had consisted of the given
// units (indices in [0, Table.Units), repeats allowed). engine.Resampler has the same
// method, so an engine's resampler serves as it is.
type Resampler interface {
	Rescore(units []int) map[string]float64
}

// Confidence is the level of the board's intervals and rank ranges, taken together: with
// this probability every interval on the board holds its bot's true score at once.
const Confidence = 0.95

// BootstrapReplicates is how many resamples measure a score's spread (its standard
// error): plenty for a standard error, cheap for the units runs have.
const BootstrapReplicates = 1000

// Method names how the board measures noise, for the footer and the JSON.
const (
	MethodWilson    = "wilson"    // win rates: Wilson score intervals
	MethodBootstrap = "bootstrap" // bootstrap standard errors over the run's units
	MethodNone      = "none"      // fewer than two units: nothing to measure the noise with
)

// Analysis is what the statistics say about a table whose rows are sorted best first.
//
// The intervals are simultaneous: each bot's is made at level 1 − (1 − Confidence)/n for n
// bots (Bonferroni over the bots), so all n hold their bots' true scores at once with
// probability at least Confidence, whatever the dependence between bots (bots seated in
// one game compete for one win). One bot ranks above another exactly when its interval lies
// wholly above the other's. While all intervals hold, every such order is true; so the
// board's orders are all right with probability at least Confidence, the family-wise
// guarantee a multiplicity correction gives, and a reader can check each rank range
// against the interval column by eye.
type Analysis struct {
	Method string
	Unit   string    // what was resampled or counted: games, tournaments
	Units  int       // how many of them
	Lo, Hi []float64 // per row, the simultaneous interval of Score; NaN when unknown
	Rank   []int     // competition rank by score: identical scores share one
	Ranks  [][2]int  // per row: the range of ranks the statistics allow it (see rankRanges)
}

// Analyse measures the rows' intervals and rank ranges at the given level (the board's
// Confidence, or an adaptive run's own for settling its order). seed makes the bootstrap
// reproducible: the same run gives the same board.
func Analyse(res Table, seed uint64, level float64) *Analysis {
	n := len(res.Rows)
	a := &Analysis{Lo: make([]float64, n), Hi: make([]float64, n)}
	for i := range a.Lo {
		a.Lo[i], a.Hi[i] = math.NaN(), math.NaN()
	}
	z := simultaneousZ(level, n)
	switch {
	case res.Resample != nil && res.Units >= 2:
		a.Method, a.Unit, a.Units = MethodBootstrap, cmp.Or(res.UnitName, "games"), res.Units
		sd := bootstrapSD(res, seed)
		for i, r := range res.Rows {
			a.Lo[i], a.Hi[i] = r.Score-z*sd[i], r.Score+z*sd[i]
		}
	case res.WinRate:
		a.Method, a.Unit, a.Units = MethodWilson, "games", res.Games
		for i, r := range res.Rows {
			lo, hi := wilsonZ(r.Wins, r.Played, z)
			a.Lo[i], a.Hi[i] = 100*lo, 100*hi
		}
	default:
		a.Method, a.Unit, a.Units = MethodNone, cmp.Or(res.UnitName, "games"), res.Units
	}
	a.Rank = competitionRanks(res)
	a.Ranks = rankRanges(res, a.Lo, a.Hi)
	return a
}

// simultaneousZ is the normal critical value that makes n two-sided intervals hold at
// once with probability at least level (Bonferroni: each at 1 − (1 − level)/n).
func simultaneousZ(level float64, n int) float64 {
	alpha := (1 - level) / float64(max(n, 1))
	return math.Sqrt2 * math.Erfinv(1-alpha)
}

// competitionRanks are "1, 2, 2, 4" by score.
func competitionRanks(res Table) []int {
	rank := make([]int, len(res.Rows))
	for i := range res.Rows {
		if i > 0 && res.Rows[i].Score == res.Rows[i-1].Score {
			rank[i] = rank[i-1]
		} else {
			rank[i] = i + 1
		}
	}
	return rank
}

// rankRanges gives each row the ranks it could hold in any order the statistics allow: from
// 1 + the bots ordered above it to n − the bots ordered below it − the bots with exactly
// its score (they share its rank, as the table's competition ranks do: two identical
// scores are "1, 1", never "1, 2"). No interval (NaN) orders nothing. Nothing is chained:
// each range counts only the bot's own separations, so bots that plainly differ are never
// lumped together by way of the bots between them.
func rankRanges(res Table, lo, hi []float64) [][2]int {
	score := make([]float64, len(res.Rows))
	for i, r := range res.Rows {
		score[i] = r.Score
	}
	return RankRanges(score, lo, hi)
}

// RankRanges is rankRanges for scores and their simultaneous intervals alone (in any
// order): the board's history keeps no more of a past run, and its chart gives each run's
// rank ranges by the same rule as the run's table.
func RankRanges(score, lo, hi []float64) [][2]int {
	n := len(score)
	out := make([][2]int, n)
	// above says the statistics order i above j: i's interval lies wholly above j's (and i
	// scored more, which the intervals imply when they hold their scores; a broken engine's
	// score outside its interval must not make an order the table contradicts).
	above := func(i, j int) bool { return lo[i] > hi[j] && score[i] > score[j] }
	for i := range score {
		better, worse, same := 0, 0, 0
		for j := range score {
			switch {
			case j == i:
			case score[j] == score[i]:
				same++
			case above(j, i):
				better++
			case above(i, j):
				worse++
			}
		}
		out[i] = [2]int{1 + better, n - worse - same}
	}
	return out
}

// Unsettled returns the rank ranges of a table (rows sorted best first, as engines give
// them) that the board's statistics, made at the given confidence, leave wider than one
// rank: each distinct range once, best first. Identical scores share a rank and never make
// a range, since no number of games can separate them. None: every bot's rank is settled.
// seed is the run's (the bootstrap's stream), so the answer is reproducible.
func Unsettled(res Table, seed uint64, confidence float64) [][2]int {
	a := Analyse(res, seed, confidence)
	var out [][2]int
	seen := map[[2]int]bool{}
	for _, g := range a.Ranks {
		if g[0] != g[1] && !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	return out
}

// bootstrapSD resamples the run's units with replacement, rescoring every bot each time,
// and returns each row's standard deviation over the resamples: its score's standard error.
func bootstrapSD(res Table, seed uint64) []float64 {
	n := len(res.Rows)
	r := rand.New(rand.NewPCG(seed, 0x6b6f746864626f6f)) // "kothdboo": a stream of its own
	sum, sumSq := make([]float64, n), make([]float64, n)
	idx := make([]int, res.Units)
	for range BootstrapReplicates {
		for k := range idx {
			idx[k] = r.IntN(res.Units)
		}
		s := res.Resample.Rescore(idx)
		for i, row := range res.Rows {
			v := s[row.Bot] - row.Score // centred: no cancellation for large scores
			sum[i] += v
			sumSq[i] += v * v
		}
	}
	sd := make([]float64, n)
	m := float64(BootstrapReplicates)
	for i := range sd {
		mean := sum[i] / m
		sd[i] = math.Sqrt(math.Max(0, (sumSq[i]-m*mean*mean)/(m-1)))
	}
	return sd
}

// Wilson is the 95 % Wilson score interval of a proportion k/n (one bot alone).
func Wilson(k, n int) (float64, float64) { return wilsonZ(k, n, zCrit) }

// wilsonZ is the Wilson score interval of k/n with critical value z.
func wilsonZ(k, n int, z float64) (float64, float64) {
	if n == 0 {
		return 0, 1
	}
	p, nf := float64(k)/float64(n), float64(n)
	d := 1 + z*z/nf
	c := (p + z*z/(2*nf)) / d
	h := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / d
	lo, hi := math.Max(0, c-h), math.Min(1, c+h)
	if k == 0 {
		lo = 0 // exactly: c and h are equal here, but not always to the last bit
	}
	if k == n {
		hi = 1
	}
	return lo, hi
}

// zCrit is the two-sided 95 % critical value of the normal distribution.
const zCrit = 1.959963984540054
