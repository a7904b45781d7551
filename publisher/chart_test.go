package publisher

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/internal/mdtext"
)

// svgElement is an element of a chart as a test reads it: its name, attributes and the
// text directly inside it.
type svgElement struct {
	Name  string
	Attr  map[string]string
	Text  string
	Depth int
}

// parseSVG reads a chart as XML, failing on anything not well-formed.
func parseSVG(t *testing.T, svg []byte) []svgElement {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(string(svg)))
	var out []svgElement
	var open []int
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("chart is not well-formed XML: %v\n%s", err, svg)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			el := svgElement{Name: e.Name.Local, Attr: map[string]string{}, Depth: len(open)}
			for _, a := range e.Attr {
				el.Attr[a.Name.Local] = a.Value
			}
			out = append(out, el)
			open = append(open, len(out)-1)
		case xml.EndElement:
			open = open[:len(open)-1]
		case xml.CharData:
			if len(open) > 0 {
				out[open[len(open)-1]].Text += string(e)
			}
		}
	}
	return out
}

// roundTrip is the board as a reader of the published JSON has it.
func roundTrip(t *testing.T, b *Board) *Board {
	t.Helper()
	var out Board
	if err := json.Unmarshal(JSON(b), &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

func atof(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return v
}

// The run's chart draws the table's numbers: every bot drawn carries the score, interval
// and rank range of its row in the board's JSON, in the table's order, with the row's
// words in its <title>; a long field draws its top 30 and says how many more.
func TestForestMatchesBoard(t *testing.T) {
	for name, b := range map[string]*Board{"first run": chartFirstRun(), "history": chartHistory(), "field of 48": chartField(), "unmeasured": chartUnmeasured()} {
		t.Run(name, func(t *testing.T) {
			pub := roundTrip(t, b)
			els := parseSVG(t, Forest(b))
			var bots []svgElement
			titles := map[int]string{}
			for i, e := range els {
				if e.Name == "g" && e.Attr["class"] == "bot" {
					bots = append(bots, e)
					if i+1 < len(els) && els[i+1].Name == "title" {
						titles[len(bots)-1] = els[i+1].Text
					}
				}
			}
			want := min(len(pub.Rows), forestRows+forestSlack)
			if len(pub.Rows) > forestRows+forestSlack {
				want = forestRows
			}
			if len(bots) != want {
				t.Fatalf("%d bots drawn, want %d of %d", len(bots), want, len(pub.Rows))
			}
			for i, g := range bots {
				r := pub.Rows[i]
				if g.Attr["data-bot"] != mdtext.Visible(r.Bot) { // as the page shows it
					t.Errorf("bot %d is %q on the chart, %q in the JSON", i, g.Attr["data-bot"], r.Bot)
				}
				if got := [2]int{int(atof(t, g.Attr["data-rank-low"])), int(atof(t, g.Attr["data-rank-high"]))}; got != r.RankRange {
					t.Errorf("%s: rank range %v on the chart, %v in the JSON", r.Bot, got, r.RankRange)
				}
				if atof(t, g.Attr["data-rank"]) != float64(r.Rank) || atof(t, g.Attr["data-score"]) != r.Score {
					t.Errorf("%s: rank %s score %s on the chart, %d and %v in the JSON", r.Bot, g.Attr["data-rank"], g.Attr["data-score"], r.Rank, r.Score)
				}
				if r.Interval == nil {
					if _, ok := g.Attr["data-low"]; ok {
						t.Errorf("%s: an interval on the chart, none in the JSON", r.Bot)
					}
				} else if atof(t, g.Attr["data-low"]) != r.Interval.Low || atof(t, g.Attr["data-high"]) != r.Interval.High {
					t.Errorf("%s: interval %s–%s on the chart, %+v in the JSON", r.Bot, g.Attr["data-low"], g.Attr["data-high"], r.Interval)
				}
				if (g.Attr["data-baseline"] == "true") != r.Baseline {
					t.Errorf("%s: baseline %q on the chart, %v in the JSON", r.Bot, g.Attr["data-baseline"], r.Baseline)
				}
				words := titles[i]
				parts := []string{rankCell(r), r.Cells[0]}
				if r.Interval != nil {
					parts = append(parts, intervalCell(r.Interval))
				}
				for _, part := range parts {
					if !strings.Contains(words, part) {
						t.Errorf("%s: its title %q lacks %q", r.Bot, words, part)
					}
				}
			}
			all := ""
			for _, e := range els {
				all += e.Text
			}
			if more := len(pub.Rows) - len(bots); more > 0 && !strings.Contains(all, fmt.Sprintf("and %d more (places %d–%d)", more, len(bots)+1, len(pub.Rows))) {
				t.Errorf("the chart does not say how many more bots the table has")
			}
			wants := []string{"Win% (games won per 100 played), 95 % simultaneous interval", "95 % interval", "baseline"}
			if pub.Statistics.Method == "none" {
				wants = []string{"Final Score (credits at the end of each tournament, summed over the", "tournaments of the run)", "No intervals: the run has too few units of play", "800M"}
			}
			for _, want := range wants {
				if !strings.Contains(all, want) {
					t.Errorf("the chart lacks %q", want)
				}
			}
		})
	}
}

// The history chart draws the history's numbers: each run of a mover carries the score and
// interval the board's JSON has for it, and the rank range the table's rule gives that run
// (for this run: the table's own). Only the two bots that moved are drawn.
func TestHistoryChartMatchesBoard(t *testing.T) {
	b := chartHistory()
	pub := roundTrip(t, b)
	els := parseSVG(t, HistorySVG(b))
	row := map[string]Row{}
	for _, r := range pub.Rows {
		row[r.Bot] = r
	}
	var drawn []string
	bot := ""
	runs := 0
	for _, e := range els {
		if e.Name == "g" && e.Attr["class"] == "mover" {
			bot = e.Attr["data-bot"]
			drawn = append(drawn, bot)
		}
		if e.Name != "g" || e.Attr["class"] != "run" {
			continue
		}
		runs++
		run := int64(atof(t, e.Attr["data-run"]))
		var h *HistoryRun
		for k := range pub.History {
			if pub.History[k].Run == run {
				h = &pub.History[k]
			}
		}
		if h == nil {
			t.Fatalf("%s: run %d is not in the board's history", bot, run)
		}
		iv := h.Intervals[bot]
		if atof(t, e.Attr["data-score"]) != h.Scores[bot] || atof(t, e.Attr["data-low"]) != iv.Low || atof(t, e.Attr["data-high"]) != iv.High {
			t.Errorf("%s run %d: %s (%s–%s) on the chart, %v (%v) in the JSON", bot, run, e.Attr["data-score"], e.Attr["data-low"], e.Attr["data-high"], h.Scores[bot], iv)
		}
		if run == pub.Run.ID {
			got := [2]int{int(atof(t, e.Attr["data-rank-low"])), int(atof(t, e.Attr["data-rank-high"]))}
			if got != row[bot].RankRange {
				t.Errorf("%s: rank range %v in this run on the chart, %v in the table", bot, got, row[bot].RankRange)
			}
		}
	}
	if strings.Join(drawn, ",") != "Climber,Fader" || runs != 30 {
		t.Errorf("movers drawn %v with %d runs, want Climber and Fader with 15 runs each", drawn, runs)
	}
}

// Both charts are plain SVG that GitHub shows: well-formed, nothing that runs or loads
// (script, foreignObject, links, images, styles, event attributes, external references), a
// generic font family, a <title> and a <desc> first; participants' words are escaped.
func TestChartsInert(t *testing.T) {
	b := chartField()
	hist := chartHistory()
	for name, svg := range map[string][]byte{"field": Forest(b), "history": HistorySVG(hist), "no movers": HistorySVG(b), "first run": Forest(chartFirstRun())} {
		els := parseSVG(t, svg)
		if els[0].Name != "svg" || els[1].Name != "title" || els[2].Name != "desc" || els[1].Text == "" || els[2].Text == "" {
			t.Errorf("%s: the chart does not open with its title and description", name)
		}
		if f := els[0].Attr["font-family"]; f != "sans-serif" {
			t.Errorf("%s: font family %q", name, f)
		}
		for _, e := range els {
			switch e.Name {
			case "script", "foreignObject", "a", "image", "use", "style", "iframe", "object", "embed":
				t.Errorf("%s: the chart holds a <%s>", name, e.Name)
			}
			for k, v := range e.Attr {
				if strings.HasPrefix(k, "on") || k == "href" || k == "style" || strings.Contains(v, "url(") || strings.Contains(v, "javascript:") {
					t.Errorf("%s: the chart has an active attribute %s=%q", name, k, v)
				}
			}
		}
	}
	if strings.Contains(string(Forest(b)), "<script>alert") {
		t.Error("a bot's markup reached the chart unescaped")
	}
	if !strings.Contains(string(Forest(b)), "⟨U+202E⟩evil") {
		t.Error("a bidirectional override in a name is not made visible as on the page")
	}
}

// No two bots of a band are ordered by the statistics, and each band is as long as it can
// be: its next bot is ordered against one of the band's.
func TestRankGroups(t *testing.T) {
	for _, b := range []*Board{chartFirstRun(), chartHistory(), chartField()} {
		rows := b.Rows
		apart := func(a, c Row) bool { return a.Interval.Low > c.Interval.High || c.Interval.Low > a.Interval.High }
		for _, g := range rankGroups(rows) {
			for i := g[0]; i < g[1]; i++ {
				for j := i + 1; j < g[1]; j++ {
					if apart(rows[i], rows[j]) && rows[i].Score != rows[j].Score {
						t.Errorf("%s and %s share a band, yet their intervals are apart", rows[i].Bot, rows[j].Bot)
					}
					if !overlaps(rows[i].RankRange, rows[j].RankRange) {
						t.Errorf("%s and %s share a band, yet their rank ranges %v and %v are apart", rows[i].Bot, rows[j].Bot, rows[i].RankRange, rows[j].RankRange)
					}
				}
			}
			if g[1] < len(rows) {
				ordered := false
				for i := g[0]; i < g[1]; i++ {
					ordered = ordered || apart(rows[i], rows[g[1]])
				}
				if !ordered {
					t.Errorf("the band %v could take %s too", g, rows[g[1]].Bot)
				}
			}
		}
	}
	// The first run's three leaders overlap; the fourth overlaps the second and third but
	// not the first, so it starts a band of its own.
	if got := fmt.Sprint(rankGroups(chartFirstRun().Rows)); got != "[[0 3] [3 4] [4 6] [6 7] [7 8]]" {
		t.Errorf("the first run's bands are %s", got)
	}
}

func overlaps(a, b [2]int) bool { return !(a[1] < b[0] || b[1] < a[0]) }

// The page shows the run's chart from the first run on, with alt text; the history chart
// only when a bot moved, and otherwise says in words that none did.
func TestPageCharts(t *testing.T) {
	first := string(Markdown(chartFirstRun()))
	if !strings.Contains(first, "![Chart: A game of dice, but avoid number 6, run 1: Win% of 8 bots in rank order, each with its 95 % simultaneous interval; bands of bots the statistics do not order among themselves at places 1–3, 5–6, the others one bot each.](forty.svg)") {
		t.Errorf("the first run's page lacks its chart:\n%s", first)
	}
	if strings.Contains(first, "History") || strings.Contains(first, ".history.svg") {
		t.Error("a first run has no history to speak of")
	}
	moved := string(Markdown(chartHistory()))
	if !strings.Contains(moved, "](forty.history.svg)") || !strings.Contains(moved, "2 bots moved outside the noise; each one's score per run with its 95 % simultaneous interval: Climber, Fader.]") {
		t.Errorf("the page does not show the history's movers:\n%s", moved)
	}
	// Fifteen runs of the same field within the noise: words, no chart.
	field := chartField()
	var past []HistoryRun
	for k := range 14 {
		h := HistoryRun{Run: int64(k + 1), Date: time.Date(2026, 11, 1+k, 4, 0, 0, 0, time.UTC), Scores: map[string]float64{}, Intervals: map[string]Interval{}}
		wobble := 0.3 * float64(k%3-1)
		for _, r := range field.Rows {
			h.Scores[r.Bot] = r.Score + wobble
			h.Intervals[r.Bot] = Interval{r.Interval.Low + wobble, r.Interval.High + wobble}
		}
		past = append(past, h)
	}
	b := chartFieldRun(15, past)
	still := string(Markdown(b))
	if strings.Contains(still, ".history.svg") || !strings.Contains(still, "History: over the last 15 runs") || !strings.Contains(still, "no bot's score moved outside the noise") {
		t.Errorf("the page of a history without moves:\n%s", still)
	}
	if ms, _ := movers(b); len(ms) != 0 {
		t.Errorf("movers %v in a history within the noise", ms)
	}
}
