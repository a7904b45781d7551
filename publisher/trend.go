package publisher

import (
	"fmt"
	"math"
	"strings"

	"github.com/kothd/kothd/internal/stats"
)

// The history chart draws only what the history says: the bots of this run whose score
// moved outside the noise (their 95 % intervals of two runs do not overlap), one small
// panel each on scales of its own. Bots that only swapped places within their intervals
// are left out, and when none moved the page says so in words instead of a chart: a
// tangle of crossing lines invites reading moves into noise.

// trendPanels is how many movers the history chart draws; the rest are named below it.
const trendPanels = 12

// mover is a bot of this run whose score moved outside the noise in the board's history.
type mover struct {
	row   Row
	runs  []trendPoint // the history's runs in which the bot has a score, oldest first
	apart [2]int       // indices into runs: the two runs whose intervals lie furthest apart
}

// trendPoint is a bot's score in one run of the history.
type trendPoint struct {
	at    int // the run's index in Board.History
	run   int64
	score float64
	iv    *Interval
	ranks [2]int // its rank range in that run, by the table's rule; zero without intervals
}

// movers returns the bots of this run (best first) whose score moved outside the noise
// between two runs of the board's history, and how many of those runs have intervals.
func movers(b *Board) ([]mover, int) {
	measured := 0
	ranks := make([]map[string][2]int, len(b.History))
	for k, h := range b.History {
		if len(h.Intervals) > 0 {
			measured++
			ranks[k] = runRanks(h)
		}
	}
	var out []mover
	for _, r := range b.Rows {
		m := mover{row: r}
		for k, h := range b.History {
			v, ok := h.Scores[r.Bot]
			if !ok {
				continue
			}
			p := trendPoint{at: k, run: h.Run, score: v, ranks: ranks[k][r.Bot]}
			if iv, ok := h.Intervals[r.Bot]; ok {
				p.iv = &iv
			}
			m.runs = append(m.runs, p)
		}
		best := 0.0
		for i, p := range m.runs {
			for j := i + 1; j < len(m.runs); j++ {
				q := m.runs[j]
				if p.iv == nil || q.iv == nil {
					continue
				}
				if gap := math.Max(p.iv.Low-q.iv.High, q.iv.Low-p.iv.High); gap > best {
					best, m.apart = gap, [2]int{i, j}
				}
			}
		}
		if best > 0 {
			out = append(out, m)
		}
	}
	return out, measured
}

// runRanks are a past run's rank ranges, by the rule of its table (stats.RankRanges), from
// the scores and intervals its history entry keeps.
func runRanks(h HistoryRun) map[string][2]int {
	var names []string
	var score, lo, hi []float64
	for name, v := range h.Scores {
		iv, ok := h.Intervals[name]
		if !ok {
			iv = Interval{Low: math.NaN(), High: math.NaN()}
		}
		names = append(names, name)
		score, lo, hi = append(score, v), append(lo, iv.Low), append(hi, iv.High)
	}
	out := map[string][2]int{}
	for i, g := range stats.RankRanges(score, lo, hi) {
		out[names[i]] = g
	}
	return out
}

// HistorySVG draws the movers, one panel each: the bot's score per run (dots joined by a
// line) and its 95 % interval (a bar), the two runs furthest apart in vermillion; above
// the panel, those two runs' scores, intervals and rank ranges in words, a line each. Without movers it
// is a short chart saying so (the page does not show it then, but a sink that kept an
// earlier history chart gets it replaced).
func HistorySVG(b *Board) []byte {
	const W = 480
	const px0, px1 = 60.0, W - 18.0
	const panelH = 156.0
	ms, measured := movers(b)
	var s strings.Builder
	if len(ms) == 0 {
		lines := wrap(historyWords(b, measured), W-16, 12)
		svgOpen(&s, W, 44+18*len(lines), historyTitle(b, ms), historyDesc(b, ms, measured))
		label(&s, 8, 22, "start", `font-size="15" font-weight="bold"`, fit(b.Title, W-16, 15, true))
		for i, l := range lines {
			label(&s, 8, float64(44+18*i), "start", `font-size="12"`, l)
		}
		s.WriteString("</svg>\n")
		return []byte(s.String())
	}
	// The key under the title and the span's line, on as many lines as it takes; the axes'
	// words under it; then the panels.
	var head strings.Builder
	label(&head, 8, 22, "start", `font-size="15" font-weight="bold"`, fit(b.Title, W-16, 15, true))
	label(&head, 8, 42, "start", `font-size="12" fill="`+colourNote+`"`, fit(runsText(b)+": "+moversText(len(ms)), W-16, 12, false))
	yk := drawKey(&head, []keyItem{
		{func(x, y float64) string {
			return fmt.Sprintf(`<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"/>`, x+5, y, colourBot)
		}, "score in a run"},
		{func(x, y float64) string {
			return fmt.Sprintf(`<path d="M%.1f %.1fV%.1f" stroke="%s" stroke-width="2"/>`, x+5, y-5, y+5, colourBot)
		}, "its 95 % simultaneous interval"},
		{func(x, y float64) string {
			return fmt.Sprintf(`<path d="M%.1f %.1fV%.1f" stroke="%s" stroke-width="3"/>`, x+5, y-5, y+5, colourAccent)
		}, "the two runs furthest apart"},
	}, 8, 62, W-8)
	label(&head, 8, yk+22, "start", `font-size="12" fill="`+colourNote+`"`, fit("Up: "+unitTitle(b)+"; across: run number", W-16, 12, false))
	top := yk + 38
	shown := min(len(ms), trendPanels)
	H := int(top+panelH*float64(shown)) + 20
	if len(ms) > shown {
		H += 20
	}
	svgOpen(&s, W, H, historyTitle(b, ms), historyDesc(b, ms, measured))
	s.WriteString(head.String())

	n := len(b.History)
	x := func(at int) float64 { return px0 + 10 + (px1-px0-20)*float64(at)/float64(max(1, n-1)) }
	every := max(1, (n+7)/8)
	for k, m := range ms[:shown] {
		y0 := top + panelH*float64(k)
		py0, py1 := y0+56, y0+128
		fmt.Fprintf(&s, `<g class="mover" data-bot="%s">`+"\n", esc(m.row.Bot))
		label(&s, 8, y0+14, "start", `font-weight="bold"`, fit(m.row.Bot, W-16, 13, true))
		from, to := apartText(m)
		label(&s, 8, y0+30, "start", `font-size="12" fill="`+colourNote+`"`, fit("from "+from, W-16, 12, false))
		label(&s, 8, y0+46, "start", `font-size="12" fill="`+colourNote+`"`, fit("to "+to, W-16, 12, false))
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, p := range m.runs {
			lo, hi = math.Min(lo, p.score), math.Max(hi, p.score)
			if p.iv != nil {
				lo, hi = math.Min(lo, p.iv.Low), math.Max(hi, p.iv.High)
			}
		}
		ticks, tickText := axisTicks(lo, hi, 4, py1-py0, true)
		lo, hi = ticks[0], ticks[len(ticks)-1]
		y := func(v float64) float64 { return py1 - (py1-py0)*(v-lo)/(hi-lo) }
		for i, v := range ticks {
			fmt.Fprintf(&s, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/>`+"\n", px0, y(v), px1, y(v), colourGrid)
			label(&s, px0-6, y(v)+4, "end", `font-size="11"`, tickText[i])
		}
		fmt.Fprintf(&s, `<rect class="plot" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#888888"/>`+"\n", px0, py0, px1-px0, py1-py0)
		for at, h := range b.History {
			if at%every == 0 || at == n-1 {
				label(&s, x(at), py1+14, "middle", `font-size="11"`, fmt.Sprint(h.Run))
			}
		}
		var pts []string
		for i, p := range m.runs {
			colour, width := colourBot, 2
			if i == m.apart[0] || i == m.apart[1] {
				colour, width = colourAccent, 3
			}
			fmt.Fprintf(&s, `<g class="run" data-run="%d" data-score="%s"`, p.run, num(p.score))
			if p.iv != nil {
				fmt.Fprintf(&s, ` data-low="%s" data-high="%s"`, num(p.iv.Low), num(p.iv.High))
			}
			if p.ranks != [2]int{} {
				fmt.Fprintf(&s, ` data-rank-low="%d" data-rank-high="%d"`, p.ranks[0], p.ranks[1])
			}
			s.WriteString(">")
			if p.iv != nil {
				fmt.Fprintf(&s, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%d"/>`, x(p.at), y(p.iv.Low), x(p.at), y(p.iv.High), colour, width)
			}
			fmt.Fprintf(&s, `<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"/></g>`+"\n", x(p.at), y(p.score), colour)
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(p.at), y(p.score)))
		}
		if len(pts) > 1 {
			fmt.Fprintf(&s, `<polyline points="%s" fill="none" stroke="%s" stroke-width="1" stroke-opacity="0.6"/>`+"\n", strings.Join(pts, " "), colourBot)
		}
		s.WriteString("</g>\n")
	}
	if len(ms) > shown {
		var rest []string
		for _, m := range ms[shown:] {
			rest = append(rest, m.row.Bot)
		}
		label(&s, 8, top+panelH*float64(shown)+8, "start", `font-size="12" fill="`+colourNote+`"`,
			fit(fmt.Sprintf("and %d more moved: %s", len(rest), strings.Join(rest, ", ")), W-16, 12, false))
	}
	s.WriteString("</svg>\n")
	return []byte(s.String())
}

// runsText names the history's span: "Runs 3 to 17 (2026-11-07 to 2026-11-21)".
func runsText(b *Board) string {
	h := b.History
	if len(h) == 0 {
		return "No runs"
	}
	first, last := h[0], h[len(h)-1]
	d0, d1 := first.Date.UTC().Format("2006-01-02"), last.Date.UTC().Format("2006-01-02")
	dates := d0
	if d1 != d0 {
		dates += " to " + d1
	}
	return fmt.Sprintf("Runs %d to %d (%s)", first.Run, last.Run, dates)
}

func moversText(n int) string {
	if n == 1 {
		return "1 bot moved outside the noise"
	}
	return fmt.Sprintf("%d bots moved outside the noise", n)
}

// apartText is a mover's two runs furthest apart in words (score, interval, rank range),
// from the earlier to the later.
func apartText(m mover) (from, to string) {
	one := func(p trendPoint) string {
		t := fmt.Sprintf("run %d: %s", p.run, trendNumber(p.score, p.iv))
		if p.iv != nil {
			t += " (" + intervalCell(p.iv) + ")"
		}
		if p.ranks != [2]int{} {
			if p.ranks[0] == p.ranks[1] {
				t += fmt.Sprintf(", rank %d", p.ranks[0])
			} else {
				t += fmt.Sprintf(", ranks %d–%d", p.ranks[0], p.ranks[1])
			}
		}
		return t
	}
	return one(m.runs[m.apart[0]]), one(m.runs[m.apart[1]])
}

// trendNumber writes a score to the decimals of its interval's width, as the table does.
func trendNumber(v float64, iv *Interval) string {
	d := decimals(1)
	if iv != nil {
		d = decimals(iv.High - iv.Low)
	}
	return fmt.Sprintf("%.*f", d, v)
}

// historyWords says, when no bot moved, what the history says instead of a chart.
func historyWords(b *Board, measured int) string {
	if len(b.History) < 2 {
		return "History: this is the board's first run, so there is nothing to compare it with yet."
	}
	if measured < 2 {
		return fmt.Sprintf("History: fewer than two of the last %d runs have intervals, so no move can be told from the noise yet.", len(b.History))
	}
	return fmt.Sprintf("History: over the last %d runs (runs %d to %d), no bot's score moved outside the noise: each bot's 95 %% intervals in any two of them overlap. Places swapped within the bands of the chart above from run to run are noise.",
		len(b.History), b.History[0].Run, b.History[len(b.History)-1].Run)
}

// historyTitle is the history chart in one line, for its <title> and the page's alt text.
func historyTitle(b *Board, ms []mover) string {
	if len(ms) == 0 {
		return short(b.Title, 80) + ": no bot moved outside the noise over the last " + plural(len(b.History), "run")
	}
	return fmt.Sprintf("%s, %s: %s; each one's score per run with its 95 %% simultaneous interval", short(b.Title, 80), strings.ToLower(runsText(b)[:1])+runsText(b)[1:], moversText(len(ms)))
}

// historyDesc lists every mover's two runs furthest apart (at most trendPanels of them).
func historyDesc(b *Board, ms []mover, measured int) string {
	if len(ms) == 0 {
		return historyWords(b, measured)
	}
	var parts []string
	for _, m := range ms[:min(len(ms), trendPanels)] {
		from, to := apartText(m)
		parts = append(parts, short(m.row.Bot, 40)+", from "+from+" to "+to)
	}
	d := historyTitle(b, ms) + ". " + strings.Join(parts, "; ") + "."
	if len(ms) > trendPanels {
		d += fmt.Sprintf(" And %d more.", len(ms)-trendPanels)
	}
	return d
}
