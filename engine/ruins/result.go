package ruins

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/internal/mdtext"
)

// table fills the result's columns and rows (§6): finalists by final score (ties in
// finalist order), then the bots the pool eliminated, by pool score (ties in competitor
// order). Mean Score is Score / final games, three decimals, as the original printed it.
func (tr *tournament) table(res *engine.Result, pool []int, finalists []Seat, score []int, finals int) {
	res.Columns = []string{"Score", "Mean Score", "Finals"}
	res.Legend = map[string]string{
		"Score":      "points over the final games",
		"Mean Score": "Score per final game",
		"Finals":     "final games played",
		"Pool Score": "points in the pool games, which choose the finalists",
	}
	if pool != nil {
		res.Columns = append(res.Columns, "Pool Score")
	}
	mean := func(v, n int) string {
		if n == 0 {
			return "–"
		}
		return strconv.FormatFloat(float64(v)/float64(n), 'f', 3, 64)
	}
	row := func(bot int, final bool) engine.Row {
		r := engine.Row{
			Bot:      tr.bots[bot].Name,
			Baseline: tr.bots[bot].Baseline,
			Played:   tr.played[bot],
			Wins:     tr.wins[bot],
			Errors:   tr.errs[bot],
		}
		if final {
			r.Score = float64(score[bot])
			r.Cells = []string{strconv.Itoa(score[bot]), mean(score[bot], finals), strconv.Itoa(finals)}
		} else {
			r.Cells = []string{"–", "–", "0"}
		}
		if pool != nil {
			r.Cells = append(r.Cells, strconv.Itoa(pool[bot]))
		}
		return r
	}
	fin := slices.Clone(finalists)
	sort.SliceStable(fin, func(i, j int) bool { return score[fin[i].Bot] > score[fin[j].Bot] })
	in := make([]bool, len(tr.bots))
	for _, f := range fin {
		res.Rows = append(res.Rows, row(f.Bot, true))
		in[f.Bot] = true
	}
	if pool == nil {
		return
	}
	rest := []int{}
	for b := range tr.bots {
		if !in[b] {
			rest = append(rest, b)
		}
	}
	sort.SliceStable(rest, func(i, j int) bool { return pool[rest[i]] > pool[rest[j]] })
	for _, b := range rest {
		res.Rows = append(res.Rows, row(b, false))
	}

	// The pool table as the original printed it, below the leaderboard.
	order := make([]int, len(tr.bots))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return pool[order[i]] > pool[order[j]] })
	var b strings.Builder
	fmt.Fprintf(&b, "Pool phase (%d games per bot):\n\n| Bot Class | Score | Mean Score |\n|---|---:|---:|\n", tr.opts.PoolGames)
	for _, i := range order {
		fmt.Fprintf(&b, "| %s | %d | %s |\n", mdtext.Text(tr.bots[i].Name), pool[i], mean(pool[i], tr.opts.PoolGames))
	}
	if len(tr.voids) > 0 {
		b.WriteString("\nVoided games:\n\n")
		for _, v := range tr.voids[:min(len(tr.voids), 20)] {
			fmt.Fprintf(&b, "- %s\n", v)
		}
	}
	res.Appendix = b.String()
}
