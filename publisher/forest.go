package publisher

import (
	"fmt"
	"math"
	"strings"

	"github.com/kothd/kothd/internal/mdtext"
)

// forestRows is how many rows the run's chart draws at most; a longer field shows its top
// forestRows and says how many more there are (the table has them all). Up to
// forestRows+forestSlack bots are drawn in full: "and 3 more" would save nothing.
const forestRows, forestSlack = 30, 4

// Forest draws the run the way the table states it (a forest plot): every entered bot in
// rank order, its headline score as a point and its 95 % simultaneous interval as a bar,
// with its rank range on the left. The rows sit on alternately shaded bands of bots the
// statistics do not order among themselves (rankGroups). Baselines are squares, the
// others dots. Each bot's mark is a group holding its numbers as data attributes and a
// <title> (a tooltip when the file is opened by itself); the test compares them with the
// board's JSON.
func Forest(b *Board) []byte {
	const W = 480
	const px0, px1 = 250.0, W - 18.0 // the plot
	const rowH = 20.0
	// The key, under the title and the run's line, on as many lines as it takes; then the
	// line saying why there are no bars, if there are none; then the ticks.
	var head strings.Builder
	y := drawKey(&head, forestKey(b), 8, 62, W-8)
	if !hasIntervals(b) && len(b.Rows) > 0 {
		y += 18
		label(&head, 8, y+4, "start", `font-size="12" fill="`+colourNote+`"`, fit("No intervals: the run has too few units of play to measure its noise.", W-16, 12, false))
	}
	top := y + 34
	shown := len(b.Rows)
	if shown > forestRows+forestSlack {
		shown = forestRows
	}
	more := len(b.Rows) - shown
	// Rank ranges right-aligned at rankX, as wide as the widest ("1–3", "25–140"); the
	// names from nameX up to the plot.
	rankX := 8.0
	for _, r := range b.Rows[:shown] {
		rankX = max(rankX, 8+textWidth(rankCell(r), 13, false))
	}
	nameX := rankX + 8
	nameW := px0 - 14 - nameX
	bottom := top + rowH*float64(shown)
	// The axis's title under the ticks, right-aligned with the plot, on two lines at most.
	axis := unitTitle(b)
	if hasIntervals(b) {
		axis += ", 95 % simultaneous interval"
	}
	axisLines := wrap(axis, px1-8, 12)
	if len(axisLines) > 2 {
		axisLines = []string{axisLines[0], fit(strings.Join(axisLines[1:], " "), px1-8, 12, false)}
	}
	H := int(bottom) + 40 + 16*len(axisLines)
	if more > 0 {
		H += int(rowH)
	}

	// The scale covers the shown rows' scores and intervals.
	lo, hi := math.Inf(1), math.Inf(-1)
	see := func(v float64) {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	for _, r := range b.Rows[:shown] {
		see(r.Score)
		if r.Interval != nil {
			see(r.Interval.Low)
			see(r.Interval.High)
		}
	}
	if math.IsInf(lo, 0) {
		lo, hi = 0, 1
	}
	ticks, tickText := axisTicks(lo, hi, 5, px1-px0, false)
	lo, hi = ticks[0], ticks[len(ticks)-1]
	x := func(v float64) float64 { return px0 + (px1-px0)*(v-lo)/(hi-lo) }

	var s strings.Builder
	if shown == 0 { // a cycle publishes no board without bots; an empty one still says so
		svgOpen(&s, W, 60, forestTitle(b), forestDesc(b))
		label(&s, 8, 22, "start", `font-size="15" font-weight="bold"`, fit(b.Title, W-16, 15, true))
		label(&s, 8, 44, "start", `font-size="12"`, "No bot entered this run.")
		s.WriteString("</svg>\n")
		return []byte(s.String())
	}
	svgOpen(&s, W, H, forestTitle(b), forestDesc(b))
	label(&s, 8, 22, "start", `font-size="15" font-weight="bold"`, fit(b.Title, W-16, 15, true))
	sub := fmt.Sprintf("Run %d (%s): %s in rank order", b.Run.ID, b.Run.Date.UTC().Format("2006-01-02"), plural(len(b.Rows), "bot"))
	if more > 0 {
		sub += fmt.Sprintf(", the top %d shown", shown)
	}
	label(&s, 8, 42, "start", `font-size="12" fill="`+colourNote+`"`, fit(sub, W-16, 12, false))
	s.WriteString(head.String())

	// Bands (rankGroups), shaded in turn.
	tint := 0
	for _, g := range rankGroups(b.Rows) {
		if g[0] >= shown {
			break
		}
		end := min(g[1], shown)
		y0, y1 := top+rowH*float64(g[0]), top+rowH*float64(end)
		fill := []string{"#e3ecf5", "#f6ebdc"}[tint%2]
		tint++
		fmt.Fprintf(&s, `<rect x="4" y="%.1f" width="%d" height="%.1f" fill="%s"/>`+"\n", y0, W-8, y1-y0, fill)
		if g[0] > 0 {
			fmt.Fprintf(&s, `<line x1="4" y1="%.1f" x2="%d" y2="%.1f" stroke="#bbbbbb" stroke-width="0.5"/>`+"\n", y0, W-4, y0)
		}
	}
	// The axis: grid, and tick labels above and below the rows.
	for i, v := range ticks {
		fmt.Fprintf(&s, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/>`+"\n", x(v), top, x(v), bottom, colourGrid)
		label(&s, x(v), top-6, "middle", `font-size="11"`, tickText[i])
		label(&s, x(v), bottom+14, "middle", `font-size="11"`, tickText[i])
	}
	fmt.Fprintf(&s, `<rect class="plot" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#888888"/>`+"\n", px0, top, px1-px0, bottom-top)
	for i, l := range axisLines {
		label(&s, px1, bottom+32+16*float64(i), "end", `font-size="12"`, l)
	}

	for i, r := range b.Rows[:shown] {
		y := top + rowH*float64(i) + rowH/2
		fmt.Fprintf(&s, `<g class="bot" data-bot="%s" data-rank="%d" data-rank-low="%d" data-rank-high="%d" data-score="%s"`,
			esc(r.Bot), r.Rank, rangeOf(r)[0], rangeOf(r)[1], num(r.Score))
		if r.Interval != nil {
			fmt.Fprintf(&s, ` data-low="%s" data-high="%s"`, num(r.Interval.Low), num(r.Interval.High))
		}
		if r.Baseline {
			s.WriteString(` data-baseline="true"`)
		}
		fmt.Fprintf(&s, ">\n<title>%s</title>\n", esc(rowText(b, r)))
		label(&s, rankX, y+4.5, "end", "", rankCell(r))
		style := ""
		if r.Baseline {
			style = `font-style="italic"`
		}
		label(&s, nameX, y+4.5, "start", style, fit(r.Bot, nameW, 13, false))
		colour := colourBot
		if r.Baseline {
			colour = colourAccent
		}
		if iv := r.Interval; iv != nil {
			fmt.Fprintf(&s, `<path d="M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fV%.1f" stroke="%s" stroke-width="2" fill="none"/>`+"\n",
				x(iv.Low), y-5, y+5, x(iv.Low), y, x(iv.High), x(iv.High), y-5, y+5, colour)
		}
		if r.Baseline {
			fmt.Fprintf(&s, `<rect x="%.1f" y="%.1f" width="7" height="7" fill="%s"/>`+"\n", x(r.Score)-3.5, y-3.5, colour)
		} else {
			fmt.Fprintf(&s, `<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"/>`+"\n", x(r.Score), y, colour)
		}
		s.WriteString("</g>\n")
	}
	if more > 0 {
		label(&s, nameX, bottom+rowH+18+16*float64(len(axisLines)), "start", `font-size="12" fill="`+colourNote+`"`,
			fmt.Sprintf("and %d more (places %d–%d): see the table", more, shown+1, len(b.Rows)))
	}
	s.WriteString("</svg>\n")
	return []byte(s.String())
}

// forestKey is the key's entries: dot, bar, square, band.
func forestKey(b *Board) []keyItem {
	items := []keyItem{{func(x, y float64) string {
		return fmt.Sprintf(`<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"/>`, x+5, y, colourBot)
	}, "score"}}
	if hasIntervals(b) {
		items = append(items, keyItem{func(x, y float64) string {
			return fmt.Sprintf(`<path d="M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fV%.1f" stroke="%s" stroke-width="2"/>`, x, y-4, y+4, x, y, x+12, x+12, y-4, y+4, colourBot)
		}, "95 % interval"})
	}
	for _, r := range b.Rows {
		if r.Baseline {
			items = append(items, keyItem{func(x, y float64) string {
				return fmt.Sprintf(`<rect x="%.1f" y="%.1f" width="7" height="7" fill="%s"/>`, x+1.5, y-3.5, colourAccent)
			}, "baseline"})
			break
		}
	}
	return append(items, keyItem{func(x, y float64) string {
		return fmt.Sprintf(`<rect x="%.1f" y="%.1f" width="12" height="12" fill="#e3ecf5" stroke="#bbbbbb" stroke-width="0.5"/>`, x, y-6)
	}, "band: none ordered among them"})
}

// rankGroups splits rows (best first) into bands: from each band's first bot on, the bots
// that the statistics order neither above nor below any bot before them in the band (no
// interval lies wholly above the other, the rule the rank ranges are made by), so no two
// bots of a band are ordered and their rank ranges overlap. [from, to) indices. A band
// says nothing across its edge: a bot may be unordered against some of the band before it
// too (its rank range says so), but not against all of them. Bands are not chained: in a
// field of evenly spaced bots the first and the last are ordered, and one band from top to
// bottom would hide that.
func rankGroups(rows []Row) [][2]int {
	ordered := func(a, b Row) bool { // a above b, or b above a
		if a.Interval == nil || b.Interval == nil || a.Score == b.Score {
			return false
		}
		if a.Score < b.Score {
			a, b = b, a
		}
		return a.Interval.Low > b.Interval.High
	}
	var out [][2]int
	for i := 0; i < len(rows); {
		j := i + 1
	grow:
		for ; j < len(rows); j++ {
			for k := i; k < j; k++ {
				if ordered(rows[k], rows[j]) {
					break grow
				}
			}
		}
		out = append(out, [2]int{i, j})
		i = j
	}
	return out
}

// rowText is a bot's line in words: its rank range, score and interval.
func rowText(b *Board, r Row) string {
	t := r.Bot
	if r.Baseline {
		t += " (baseline)"
	}
	t += ": rank " + rankCell(r) + ", " + headline(b) + " " + chartScore(r)
	if r.Interval != nil {
		t += ", 95 % simultaneous interval " + intervalCell(r.Interval)
	}
	return t
}

// chartScore is the headline score as the table writes it.
func chartScore(r Row) string {
	if len(r.Cells) > 0 {
		return mdtext.Visible(r.Cells[0])
	}
	return fmt.Sprintf("%.*f", decimals(1), r.Score)
}

// forestTitle is the run's chart in one line, for its <title> and the page's alt text.
func forestTitle(b *Board) string {
	t := fmt.Sprintf("%s, run %d: %s of %s in rank order", short(b.Title, 80), b.Run.ID, headline(b), plural(len(b.Rows), "bot"))
	if hasIntervals(b) {
		t += ", each with its 95 % simultaneous interval"
	}
	return t
}

// forestDesc says what the chart shows: the bands of bots the statistics do not order
// among themselves, band by band (names cut, at most ten bands of eight names).
func forestDesc(b *Board) string {
	alone, bands := 0, 0
	var groups []string
	for _, g := range rankGroups(b.Rows) {
		if g[1]-g[0] == 1 {
			alone++
			continue
		}
		if bands++; bands > 10 {
			continue
		}
		var names []string
		for _, r := range b.Rows[g[0]:min(g[1], g[0]+8)] {
			names = append(names, short(r.Bot, 40))
		}
		if g[1]-g[0] > 8 {
			names = append(names, fmt.Sprintf("%d more", g[1]-g[0]-8))
		}
		groups = append(groups, fmt.Sprintf("places %d–%d (%s)", g[0]+1, g[1], strings.Join(names, ", ")))
	}
	if bands > 10 {
		groups = append(groups, fmt.Sprintf("and %d bands more", bands-10))
	}
	d := forestTitle(b) + ". "
	switch {
	case len(b.Rows) == 0:
		return d + "No bot entered."
	case bands == 0:
		return d + "The statistics order every two bots next to each other: each is a band of its own."
	}
	d += "Shaded bands, each of bots the statistics do not order among themselves (a bot's rank range also counts the bots of other bands it is not ordered against): " + strings.Join(groups, "; ")
	switch {
	case alone == 1:
		d += "; 1 more bot on a band of its own"
	case alone > 1:
		d += fmt.Sprintf("; %d more bots, each on a band of its own", alone)
	}
	return d + "."
}
