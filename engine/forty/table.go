package forty

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kothd/kothd/engine"
)

// Columns of the original table (§6). The publisher adds a 95 % interval for Win%
// (Result.WinRate).
var Columns = []string{"Win%", "Wins", "Played", "Max", "Avg", "Avg win", "Throws", "Success%"}

// Legend says what the columns mean (§6), for the board.
var Legend = map[string]string{
	"Win%":     "games won per 100 played",
	"Wins":     "games won (a tie counts for every tied bot)",
	"Played":   "games seated in",
	"Max":      "highest final score in a game",
	"Avg":      "mean final score per game",
	"Avg win":  "mean final score in the games won",
	"Throws":   "mean throws per turn",
	"Success%": "turns not ending in a 6, per 100 turns",
}

// Table turns a tally into the leaderboard: rows by Win% descending, then Wins, then name.
func Table(t *Tally, bots []engine.Entrant, seconds float64) *engine.Result {
	res := &engine.Result{Games: t.Games, Voided: t.Voided, Columns: Columns, Legend: Legend, WinRate: true}
	for i, b := range t.Bots {
		if b.Played == 0 {
			continue
		}
		winPct := 100 * float64(b.Wins) / float64(b.Played)
		res.Rows = append(res.Rows, engine.Row{
			Bot: bots[i].Name, Baseline: bots[i].Baseline, Score: winPct,
			Played: b.Played, Wins: b.Wins, Errors: b.Errors,
			Cells: []string{
				fmt.Sprintf("%.1f", winPct),
				fmt.Sprint(b.Wins),
				fmt.Sprint(b.Played),
				fmt.Sprint(b.Max),
				fmt.Sprintf("%.2f", float64(b.ScoreSum)/float64(b.Played)),
				fmt.Sprintf("%.2f", float64(b.WinScoreSum)/float64(max(1, b.Wins))),
				fmt.Sprintf("%.2f", ratio(b.Throws, b.Turns)),
				fmt.Sprintf("%.2f", 100*ratio(b.Successes, b.Turns)),
			},
		})
	}
	sort.SliceStable(res.Rows, func(i, j int) bool {
		a, b := res.Rows[i], res.Rows[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if a.Wins != b.Wins {
			return a.Wins > b.Wins
		}
		return a.Bot < b.Bot
	})
	res.Summary = []string{
		fmt.Sprintf("Simulation or %d games between %d bots completed in %.0f seconds", t.Games, len(bots), seconds),
		fmt.Sprintf("Each game lasted for an average of %.2f rounds", ratio(t.PassSum, t.Games)),
		fmt.Sprintf("%d games were tied between two or more bots", t.Tied),
		fmt.Sprintf("%d games ran until the round limit, highest round was %d", t.Capped, t.MaxPasses),
	}
	res.Appendix = percentiles(t.WinHist, t.Games)
	return res
}

// percentiles renders the winning-score percentile table of §6.
func percentiles(hist map[int]int, games int) string {
	if games == 0 {
		return ""
	}
	scores := make([]int, 0, len(hist))
	for s := range hist {
		scores = append(scores, s)
	}
	sort.Ints(scores)
	// value(bin) = smallest score whose cumulative count reaches games*(bin+1)/10000.
	value := func(bin int) int {
		need := float64(games) * float64(bin+1) / 10000
		cum := 0
		for _, s := range scores {
			cum += hist[s]
			if float64(cum) >= need {
				return s
			}
		}
		return scores[len(scores)-1]
	}
	var b strings.Builder
	b.WriteString("| Winning score percentile | Score |\n|---|---|\n")
	for _, p := range []struct {
		label string
		bin   int
	}{{"50", 5000}, {"75", 7500}, {"90", 9000}, {"95", 9500}, {"99", 9900}, {"99.9", 9990}, {"99.99", 9999}} {
		fmt.Fprintf(&b, "| %s %% | %d |\n", p.label, value(p.bin))
	}
	return b.String()
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
