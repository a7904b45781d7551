package publisher

import (
	"math"
	"math/rand/v2"
	"sort"

	"github.com/kothd/kothd/engine"
)

// Confidence is the level of every interval and test on the board.
const Confidence = 0.95

// bootstrapReplicates is how many resamples an interval and a pairwise test use: enough for
// a 95 % percentile interval and p-values to about 0.002, cheap for the units runs have.
const bootstrapReplicates = 1000

// Method names how the board measures noise, for the footer and the JSON.
const (
	MethodWilson    = "wilson"    // win rates: Wilson score intervals, two-proportion z-tests
	MethodBootstrap = "bootstrap" // percentile bootstrap over the run's units, paired differences
	MethodNone      = "none"      // fewer than two units: nothing to measure the noise with
)

// analysis is what the statistics say about a table whose rows are sorted best first.
type analysis struct {
	method string
	unit   string    // what was resampled or counted: games, tournaments
	units  int       // how many of them
	lo, hi []float64 // per row, the interval of Score; NaN when unknown
	sepP   []float64 // per adjacent pair (i, i+1): Holm-adjusted p-value of "same strength"
	rank   []int     // competition rank by Score: identical scores share one
	group  [][2]int  // per row: first and last rank of its tie group
}

// analyse measures each row's interval and separates adjacent rows at the board's
// Confidence. seed makes the bootstrap reproducible: the same run gives the same board.
func analyse(res *engine.Result, seed uint64) *analysis { return analyseAt(res, seed, Confidence) }

// analyseAt is analyse with the tie groups made at another confidence level (intervals
// stay at Confidence): an adaptive run's own level for settling its order.
func analyseAt(res *engine.Result, seed uint64, level float64) *analysis {
	n := len(res.Rows)
	a := &analysis{lo: make([]float64, n), hi: make([]float64, n), sepP: make([]float64, max(n-1, 0)), rank: make([]int, n), group: make([][2]int, n)}
	for i := range a.lo {
		a.lo[i], a.hi[i] = math.NaN(), math.NaN()
	}
	raw := make([]float64, max(n-1, 0)) // unadjusted p per adjacent pair
	for i := range raw {
		raw[i] = 1
	}
	switch {
	case res.Resample != nil && res.Units >= 2:
		a.method, a.unit, a.units = MethodBootstrap, orDefault(res.UnitName, "games"), res.Units
		bootstrap(res, seed, a, raw)
	case res.WinRate:
		a.method, a.unit, a.units = MethodWilson, "games", res.Games
		for i, r := range res.Rows {
			lo, hi := Wilson(r.Wins, r.Played)
			a.lo[i], a.hi[i] = 100*lo, 100*hi
		}
		for i := 0; i+1 < n; i++ {
			raw[i] = twoProportionP(res.Rows[i].Wins, res.Rows[i].Played, res.Rows[i+1].Wins, res.Rows[i+1].Played)
		}
	default:
		a.method, a.unit, a.units = MethodNone, orDefault(res.UnitName, "games"), res.Units
	}
	for i := 0; i+1 < n; i++ {
		if res.Rows[i].Score == res.Rows[i+1].Score {
			raw[i] = 1 // identical scores are never separated, whatever the resamples say
		}
	}
	copy(a.sepP, holm(raw))
	// Competition ranks ("1, 2, 2, 4") by score, then tie groups: maximal runs of rows
	// whose adjacent pairs the test does not separate.
	for i := range res.Rows {
		if i > 0 && res.Rows[i].Score == res.Rows[i-1].Score {
			a.rank[i] = a.rank[i-1]
		} else {
			a.rank[i] = i + 1
		}
	}
	for start := 0; start < n; {
		end := start
		for end+1 < n && a.sepP[end] >= 1-level {
			end++
		}
		for i := start; i <= end; i++ {
			a.group[i] = [2]int{a.rank[start], a.rank[end]} // equal ranks when all scores are equal
		}
		start = end + 1
	}
	return a
}

// Unsettled returns the rank ranges of a table (rows sorted best first, as engines give
// them) that the board's statistics cannot order at the given confidence: the tie groups
// made by the same tests and the same Holm correction as the board's, at that level, which
// span more than one rank. Identical scores share a rank and are never a range, since no
// number of games can separate them. None: every pair of adjacent ranks is separated, the
// order is settled. seed is the run's (the bootstrap's stream), so the answer is
// reproducible.
func Unsettled(res *engine.Result, seed uint64, confidence float64) [][2]int {
	a := analyseAt(res, seed, confidence)
	var out [][2]int
	for i, g := range a.group {
		if g[0] != g[1] && (i == 0 || a.group[i-1] != g) {
			out = append(out, g)
		}
	}
	return out
}

// bootstrap resamples the run's units with replacement, rescoring every bot each time:
// the percentile interval of each score, and for each adjacent pair the two-sided p-value
// that their difference changes sign (paired: both scores come from the same resample).
func bootstrap(res *engine.Result, seed uint64, a *analysis, raw []float64) {
	n := len(res.Rows)
	r := rand.New(rand.NewPCG(seed, 0x6b6f746864626f6f)) // "kothdboo": a stream of its own
	scores := make([][]float64, n)
	below := make([]int, max(n-1, 0)) // replicates where row i+1 scored at least row i
	above := make([]int, max(n-1, 0)) // replicates where row i scored at least row i+1
	idx := make([]int, res.Units)
	for range bootstrapReplicates {
		for k := range idx {
			idx[k] = r.IntN(res.Units)
		}
		s := res.Resample.Rescore(idx)
		for i, row := range res.Rows {
			scores[i] = append(scores[i], s[row.Bot])
		}
		for i := 0; i+1 < n; i++ {
			d := s[res.Rows[i].Bot] - s[res.Rows[i+1].Bot]
			if d <= 0 {
				below[i]++
			}
			if d >= 0 {
				above[i]++
			}
		}
	}
	for i := range scores {
		sort.Float64s(scores[i])
		a.lo[i] = quantile(scores[i], (1-Confidence)/2)
		a.hi[i] = quantile(scores[i], 1-(1-Confidence)/2)
	}
	for i := range raw {
		raw[i] = math.Min(1, 2*float64(min(below[i], above[i])+1)/float64(bootstrapReplicates+1))
	}
}

// quantile of sorted values, linear between order statistics.
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	pos := q * float64(len(sorted)-1)
	i := int(pos)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (pos-float64(i))*(sorted[i+1]-sorted[i])
}

// Wilson is the 95 % Wilson score interval of a proportion k/n.
func Wilson(k, n int) (float64, float64) {
	if n == 0 {
		return 0, 1
	}
	z := zCrit
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

// twoProportionP is the two-sided p-value of the pooled z-test that k1/n1 and k2/n2 are
// the same rate.
func twoProportionP(k1, n1, k2, n2 int) float64 {
	if n1 == 0 || n2 == 0 {
		return 1
	}
	p := float64(k1+k2) / float64(n1+n2)
	se := math.Sqrt(p * (1 - p) * (1/float64(n1) + 1/float64(n2)))
	if se == 0 {
		return 1
	}
	z := math.Abs(float64(k1)/float64(n1)-float64(k2)/float64(n2)) / se
	return math.Erfc(z / math.Sqrt2)
}

// holm adjusts p-values for multiplicity (Holm–Bonferroni step-down): the family of
// adjacent comparisons then errs (separates two equal bots) with at most 5 % probability.
func holm(p []float64) []float64 {
	m := len(p)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return p[order[i]] < p[order[j]] })
	out := make([]float64, m)
	running := 0.0
	for k, i := range order {
		v := math.Min(1, float64(m-k)*p[i])
		running = math.Max(running, v)
		out[i] = running
	}
	return out
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
