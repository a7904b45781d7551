package referee

import (
	"fmt"
	"slices"
	"sort"
	"strconv"

	"github.com/kothd/kothd/engine"
)

// maxVoidLines is how many voided games the board names (the first ones, in game order).
const maxVoidLines = 3

// table is the run's table from its games in game order: each bot's mean score per game
// it sat in (the order), its wins (the game's best score, alone), games played, faults,
// and the referee's own columns as means per game played.
func table(r engine.Run, outs []outcome) *engine.Result {
	n := len(r.Bots)
	sum, played, wins, errs := make([]float64, n), make([]int, n), make([]int, n), make([]int, n)
	stats := map[string][]float64{}
	res := &engine.Result{UnitName: "games"}
	samples := &meanSamples{}
	for g, o := range outs {
		if o.Void != "" {
			res.Voided++
			if res.Voided <= maxVoidLines {
				res.Summary = append(res.Summary, fmt.Sprintf("Game %d voided, the host's referee's fault: %s", g, o.Void))
			}
			continue
		}
		res.Games++
		best, alone := -1, false
		for s, b := range o.Seats {
			sum[b] += o.Scores[s]
			played[b]++
			errs[b] += at(o.Errors, s)
			switch {
			case best < 0 || o.Scores[s] > o.Scores[best]:
				best, alone = s, true
			case o.Scores[s] == o.Scores[best]:
				alone = false
			}
			for name, col := range o.Stats {
				if stats[name] == nil {
					stats[name] = make([]float64, n)
				}
				stats[name][b] += col[s]
			}
		}
		if alone && len(o.Seats) > 1 {
			wins[o.Seats[best]]++
		}
		samples.Seats = append(samples.Seats, o.Seats)
		samples.Scores = append(samples.Scores, o.Scores)
	}
	if res.Voided > maxVoidLines {
		res.Summary = append(res.Summary, fmt.Sprintf("%d games voided in all.", res.Voided))
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range stats {
			if !yield(k) {
				return
			}
		}
	})
	res.Columns = append([]string{"Score", "Wins", "Played"}, names...)
	res.Legend = map[string]string{"Score": "mean score per game played, as the referee scored it", "Wins": "games with the best score, alone", "Played": "games the bot sat in"}
	for i, b := range r.Bots {
		mean := func(v float64) float64 {
			if played[i] == 0 {
				return 0
			}
			return v / float64(played[i])
		}
		row := engine.Row{Bot: b.Name, Baseline: b.Baseline, Score: mean(sum[i]), Played: played[i], Wins: wins[i], Errors: errs[i],
			Cells: []string{num(mean(sum[i])), strconv.Itoa(wins[i]), strconv.Itoa(played[i])}}
		for _, name := range names {
			row.Cells = append(row.Cells, num(mean(stats[name][i])))
		}
		res.Rows = append(res.Rows, row)
		samples.Bots = append(samples.Bots, b.Name)
	}
	sort.SliceStable(res.Rows, func(x, y int) bool { return res.Rows[x].Score > res.Rows[y].Score })
	res.Units, res.Resample = res.Games, samples
	return res
}

func at(v []int, i int) int {
	if i < len(v) {
		return v[i]
	}
	return 0
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

// meanSamples rescores a resampled run: each bot's mean score over the games it sat in
// among the units drawn (engine.Resampler). Plain data, so results compare with DeepEqual.
type meanSamples struct {
	Bots   []string
	Seats  [][]int     // per scored game: its seats
	Scores [][]float64 // per scored game: each seat's score
}

func (m *meanSamples) Rescore(units []int) map[string]float64 {
	sum, n := make([]float64, len(m.Bots)), make([]int, len(m.Bots))
	for _, u := range units {
		for s, b := range m.Seats[u] {
			sum[b] += m.Scores[u][s]
			n[b]++
		}
	}
	out := make(map[string]float64, len(m.Bots))
	for b, name := range m.Bots {
		if n[b] > 0 {
			out[name] = sum[b] / float64(n[b])
		} else {
			out[name] = 0
		}
	}
	return out
}
