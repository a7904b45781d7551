package publisher

import (
	"fmt"
	"math"
	"time"

	"github.com/kothd/kothd/engine"
)

// The charts' fixtures: a first run, a history of fifteen runs in which two bots moved and
// the rest stayed within the noise, and a field of 48 bots with the names a board must
// survive. Each is a board as Build makes it from an engine's result.

// winRows are forty-like rows from win counts out of played games, best first.
func winRows(names []string, wins []int, played int, baselines map[string]bool) []engine.Row {
	var rows []engine.Row
	for i, n := range names {
		score := 100 * float64(wins[i]) / float64(played)
		rows = append(rows, engine.Row{Bot: n, Score: score, Played: played, Wins: wins[i], Baseline: baselines[n],
			Cells: []string{fmt.Sprintf("%.2f", score)}})
	}
	return rows
}

func winInput(names []string, wins []int, played int, baselines map[string]bool, run int64, date time.Time) Input {
	bots := map[string]BotInfo{}
	for i, n := range names {
		if !baselines[n] {
			bots[n] = BotInfo{Bot: answerBot(fmt.Sprintf("author %d", i), 1000+int64(i)), ContentHash: "ab"}
		}
	}
	return Input{Challenge: "forty", Title: "A game of dice, but avoid number 6", Engine: "forty", QuestionID: 177765, RunID: run, Seed: uint64(run),
		Sandbox: "bwrap", Date: date, Bots: bots,
		Result: &engine.Result{Games: played, Columns: []string{"Win%"}, Legend: map[string]string{"Win%": "games won per 100 played"},
			Rows: winRows(names, wins, played, baselines), WinRate: true}}
}

var fortyNames = []string{"FortyTeen", "AggressiveStalker", "PointsAreForNerdsBot", "FlipCoinRollDice", "MatchLeaderBot", "EnsureLead", "Roll6Timesv2", "GoToTenBot"}

// chartFirstRun is a first run of eight bots, two of them baselines.
func chartFirstRun() *Board {
	in := winInput(fortyNames, []int{1310, 1262, 1240, 1103, 905, 880, 612, 340}, 6000, map[string]bool{"Roll6Timesv2": true, "GoToTenBot": true},
		1, time.Date(2026, 11, 7, 4, 0, 0, 0, time.UTC))
	in.FirstRun = true
	return Build(in)
}

// historyNames: "Climber" is edited and climbs from run 6 on, "Fader" falls; the rest stay
// within the noise.
var historyNames = []string{"FortyTeen", "AggressiveStalker", "Climber", "PointsAreForNerdsBot", "Fader", "FlipCoinRollDice", "MatchLeaderBot", "EnsureLead", "StopBot", "ThrowTwiceBot", "Roll6Timesv2", "GoToTenBot"}

// historyWin is a bot's win % in run k (1 to 15): a level of its own, a small wobble, and
// the two movers' trends.
func historyWin(name string, i, k int) float64 {
	v := 28 - 1.6*float64(i) + 0.35*float64((k*7+i*3)%5-2)
	switch name {
	case "Climber":
		v = 17 + 9*math.Min(1, math.Max(0, float64(k-5)/5)) + 0.3*float64(k%3-1)
	case "Fader":
		v = 27 - 7*math.Min(1, math.Max(0, float64(k-3)/8)) + 0.3*float64(k%2)
	}
	return v
}

// chartHistory is run 15 of a history of fifteen runs of twelve bots.
func chartHistory() *Board {
	const played = 6000
	var past []HistoryRun
	for k := 1; k < 15; k++ {
		h := HistoryRun{Run: int64(k), Date: time.Date(2026, 11, 6+k, 4, 0, 0, 0, time.UTC), Scores: map[string]float64{}, Intervals: map[string]Interval{}}
		for i, n := range historyNames {
			v := historyWin(n, i, k)
			h.Scores[n] = v
			h.Intervals[n] = Interval{v - 1.55, v + 1.6}
		}
		past = append(past, h)
	}
	// This run: the names in order of their win %.
	type bw struct {
		name string
		wins int
	}
	var order []bw
	for i, n := range historyNames {
		order = append(order, bw{n, int(math.Round(historyWin(n, i, 15) * played / 100))})
	}
	for i := range order {
		for j := i + 1; j < len(order); j++ {
			if order[j].wins > order[i].wins {
				order[i], order[j] = order[j], order[i]
			}
		}
	}
	var names []string
	var wins []int
	for _, o := range order {
		names, wins = append(names, o.name), append(wins, o.wins)
	}
	in := winInput(names, wins, played, map[string]bool{"Roll6Timesv2": true, "GoToTenBot": true}, 15, time.Date(2026, 11, 21, 4, 0, 0, 0, time.UTC))
	in.History = past
	return Build(in)
}

// chartField is a field of 48 bots: names of 64 characters without a blank, markup,
// bidirectional overrides, Zalgo marks, ideographs, emoji, Arabic; ties and baselines.
func chartField() *Board { return chartFieldRun(3, nil) }

// chartFieldRun is the field of 48 as run number run, after the past runs.
func chartFieldRun(run int64, past []HistoryRun) *Board {
	special := []string{
		"ThisBotHasTheLongestNameTheCapAllowsSoTheLayoutMustBreakItSome64",
		`</text><script>alert(1)</script> & "x"`,
		"\u202Eevil\u202C override",
		"Z\u0301\u0302\u0303\u0304\u0305\u0306\u0307\u0308algo",
		"長い名前のボット長い名前のボット長い名前のボット長い名前",
		"🎲🎲🎲🎲🎲🎲🎲🎲🎲🎲🎲🎲🎲🎲🎲🎲🎲🎲🎲🎲",
		"بوت النرد الذي لا يحب الرقم ستة أبدا أبدا",
		"WWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWW",
		"Жадный бот с очень длинным именем на кириллице",
		"a_b_c_d_e_f_g_h_i_j_k_l_m_n_o_p_q_r_s_t_u_v_w_x_y_z",
	}
	var names []string
	var wins []int
	baselines := map[string]bool{}
	for i := range 48 {
		n := fmt.Sprintf("Bot%02d", i+1)
		if i%4 == 1 && i/4 < len(special) {
			n = special[i/4]
		}
		if i == 20 || i == 40 {
			n = fmt.Sprintf("Baseline%02d", i+1)
			baselines[n] = true
		}
		names = append(names, n)
		w := 1500 - 26*i
		if i == 6 {
			w = wins[5] // a tie
		}
		wins = append(wins, w)
	}
	in := winInput(names, wins, 6000, baselines, run, time.Date(2026, 11, 6+int(run), 4, 0, 0, 0, time.UTC))
	in.History = past
	return Build(in)
}

// chartUnmeasured is a Bank-Heist-like field of 150 bots from one unit of play: no
// intervals, so every rank range spans the table ("1–150") and the chart says why it has no
// bars; nine-digit scores and a long note on the score's unit.
func chartUnmeasured() *Board {
	var rows []engine.Row
	for i := range 150 {
		score := float64(812_000_000 - 5_300_000*i)
		rows = append(rows, engine.Row{Bot: fmt.Sprintf("Robber%03d", i+1), Score: score, Cells: []string{fmt.Sprint(score)}})
	}
	return Build(Input{Challenge: "bankheist", Title: "King of the Hill: Bank Heist", Engine: "bankheist", RunID: 4, Seed: 4, Date: time.Date(2026, 11, 10, 4, 0, 0, 0, time.UTC),
		Result: &engine.Result{Games: 1, Units: 1, Columns: []string{"Final Score"}, Rows: rows,
			Legend: map[string]string{"Final Score": "credits at the end of each tournament, summed over the tournaments of the run"}}})
}
