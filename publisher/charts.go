package publisher

import (
	"fmt"
	"strings"
)

// charts puts the charts on the page: the run's (Forest) always, with alt text that says
// what it shows; below it the history's movers (HistorySVG) when a bot moved outside the
// noise, or in words why there is no history chart.
func charts(w *strings.Builder, b *Board) {
	fmt.Fprintf(w, "\n![%s](%s)\n", text(forestAlt(b)), ChartName(b.Challenge))
	if len(b.History) < 2 {
		return
	}
	ms, measured := movers(b)
	if len(ms) == 0 {
		w.WriteString("\n" + text(historyWords(b, measured)) + "\n")
		return
	}
	fmt.Fprintf(w, "\n![%s](%s)\n", text(historyAlt(b, ms)), HistoryChartName(b.Challenge))
}

// forestAlt is the run's chart in words: what it draws, and where its bands of bots the
// statistics do not order are (places in the table, without names: the table has them).
func forestAlt(b *Board) string {
	t := "Chart: " + forestTitle(b)
	var spans []string
	alone := 0
	for _, g := range rankGroups(b.Rows) {
		if g[1]-g[0] > 1 {
			spans = append(spans, fmt.Sprintf("%d–%d", g[0]+1, g[1]))
		} else {
			alone++
		}
	}
	others := ""
	if alone > 0 {
		others = ", the others one bot each"
	}
	switch {
	case len(b.Rows) == 0:
	case len(spans) == 0:
		t += "; the statistics order every two bots next to each other, one band each"
	case len(spans) == 1 && alone == 0:
		t += "; the statistics order none of them: one band"
	case len(spans) <= 8:
		t += "; bands of bots the statistics do not order among themselves at places " + strings.Join(spans, ", ") + others
	default:
		t += fmt.Sprintf("; %d bands of bots the statistics do not order among themselves at places %s and more", len(spans), strings.Join(spans[:8], ", ")) + others
	}
	if len(b.Rows) > forestRows+forestSlack {
		t += fmt.Sprintf("; the top %d drawn", forestRows)
	}
	return t + "."
}

// historyAlt names the movers (at most five, names cut) and says what is drawn.
func historyAlt(b *Board, ms []mover) string {
	var names []string
	for _, m := range ms[:min(len(ms), 5)] {
		names = append(names, short(m.row.Bot, 32))
	}
	if len(ms) > 5 {
		names = append(names, fmt.Sprintf("%d more", len(ms)-5))
	}
	return "Chart: " + historyTitle(b, ms) + ": " + strings.Join(names, ", ") + "."
}
