package publisher

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/internal/stats"
)

// meanResult is a White-Elephant-like run: per game every bot scores a normal draw around
// its strength; the score is the mean over games, which the publisher bootstraps.
func meanResult(strengths []float64, games int, seed uint64) *engine.Result {
	r := rand.New(rand.NewPCG(seed, 1))
	names := []string{}
	per := make([][]float64, len(strengths))
	for i, s := range strengths {
		names = append(names, string(rune('A'+i)))
		for range games {
			per[i] = append(per[i], s+r.NormFloat64())
		}
	}
	smp := &engine.Samples{Bots: names, Mean: true}
	for u := range games {
		v := make([]float64, len(names))
		for i := range names {
			v[i] = per[i][u]
		}
		smp.Values = append(smp.Values, v)
	}
	res := &engine.Result{Games: games, Units: games, UnitName: "games", Resample: smp}
	all := make([]int, games)
	for i := range all {
		all[i] = i
	}
	s := smp.Rescore(all)
	for _, n := range names {
		res.Rows = append(res.Rows, engine.Row{Bot: n, Score: s[n], Played: games, Cells: []string{"x"}})
	}
	// best first, as engines sort
	for i := range res.Rows {
		for j := i + 1; j < len(res.Rows); j++ {
			if res.Rows[j].Score > res.Rows[i].Score {
				res.Rows[i], res.Rows[j] = res.Rows[j], res.Rows[i]
			}
		}
	}
	return res
}

func TestBootstrapRankRanges(t *testing.T) {
	// Two clearly separated pairs of equal bots: A,B at 5 and C,D at 0, 200 games each with
	// unit noise. A and B share ranks 1–2, C and D ranks 3–4.
	res := meanResult([]float64{5, 5, 0, 0}, 200, 7)
	a := analyse(res, 1)
	if a.Method != stats.MethodBootstrap || a.Units != 200 {
		t.Fatalf("method %s over %d", a.Method, a.Units)
	}
	if a.Ranks[0] != [2]int{1, 2} || a.Ranks[1] != [2]int{1, 2} || a.Ranks[2] != [2]int{3, 4} || a.Ranks[3] != [2]int{3, 4} {
		t.Errorf("rank ranges %v, want 1–2, 1–2, 3–4, 3–4", a.Ranks)
	}
	for i, r := range res.Rows {
		// the standard error of a mean of 200 unit normals is 0.071; four bots' simultaneous
		// intervals are ± 2.50 of it: width about 0.35
		if !(a.Lo[i] < r.Score && r.Score < a.Hi[i]) || a.Hi[i]-a.Lo[i] > 0.45 || a.Hi[i]-a.Lo[i] < 0.25 {
			t.Errorf("%s: interval %.3f–%.3f around %.3f", r.Bot, a.Lo[i], a.Hi[i], r.Score)
		}
	}
	// The same seed gives the same board.
	b := analyse(res, 1)
	if b.Lo[0] != a.Lo[0] || b.Hi[3] != a.Hi[3] {
		t.Error("the bootstrap is not reproducible")
	}
	// Family-wise error: over many runs of five equal bots, any order claimed at all is
	// wrong, and it must be rare (at most 5 % of runs, give or take the bootstrap).
	wrong := 0
	for s := range uint64(40) {
		a := analyse(meanResult([]float64{1, 1, 1, 1, 1}, 60, 100+s), s)
		for _, g := range a.Ranks {
			if g != [2]int{1, 5} {
				wrong++
				break
			}
		}
	}
	if wrong > 6 { // expected at most 2 of 40
		t.Errorf("equal bots were ordered in %d of 40 runs", wrong)
	}
}

func TestIdenticalScoresShareARank(t *testing.T) {
	res := &engine.Result{Rows: []engine.Row{{Bot: "a", Score: 3}, {Bot: "b", Score: 2}, {Bot: "c", Score: 2}, {Bot: "d", Score: 1}}}
	a := analyse(res, 1) // one unit: no statistics, but equal scores still share
	if a.Rank[1] != 2 || a.Rank[2] != 2 || a.Rank[3] != 4 {
		t.Errorf("ranks %v, want 1 2 2 4", a.Rank)
	}
	// Without statistics every rank range spans the table, the twins' one rank short:
	// whatever the order, they share a rank.
	if want := [][2]int{{1, 4}, {1, 3}, {1, 3}, {1, 4}}; a.Method != stats.MethodNone || !reflect.DeepEqual(a.Ranks, want) {
		t.Errorf("without statistics: %v %v, want %v", a.Method, a.Ranks, want)
	}
}

// Playing the same bots again (once --force) reorders noise; that must not be news. A
// real change (tie groups apart) and a new bot are.
func TestMovesOnlyWhenSignificant(t *testing.T) {
	first := Build(sampleInput())
	in := sampleInput()
	in.RunID, in.Previous = 4, first
	// Close passes A|B (20.6 against 20.5 is noise); Leader falls to third, clear of
	// where it was.
	rows := in.Result.Rows
	rows[0], rows[2] = rows[2], rows[0]
	rows[0].Score, rows[0].Wins = 20.6, 824
	rows[2].Score, rows[2].Wins = 10.5, 420
	b := Build(in)
	got := map[string]*Move{}
	for _, r := range b.Rows {
		got[r.Bot] = r.Move
	}
	if got["Close"] != nil || got["A|B"] != nil {
		t.Errorf("noise reported as a move: Close %+v, A|B %+v", got["Close"], got["A|B"])
	}
	if m := got["Leader"]; m == nil || m.Kind != "down" || m.From != 1 || m.Why != "significant" {
		t.Errorf("Leader's fall not reported: %+v (rows %+v)", m, b.Rows)
	}
	var movers []string
	for _, c := range b.Changes {
		if c.Kind == "up" || c.Kind == "down" {
			movers = append(movers, c.Bot)
		}
	}
	if strings.Join(movers, ",") != "Leader" {
		t.Errorf("movers in the changes: %v", movers)
	}
	// A new bot is marked new.
	in = sampleInput()
	in.Previous = first
	in.Result.Rows[5].Bot = "Newcomer"
	b = Build(in)
	if m := b.Rows[5].Move; m == nil || m.Kind != "new" {
		t.Errorf("new bot: %+v", m)
	}
}
