package publisher

import (
	"fmt"
	"html"
	"math"
	"strings"

	"github.com/kothd/kothd/internal/mdtext"
	"github.com/kothd/kothd/internal/stats"
)

// chartBots is how many of the leading bots the chart follows.
const chartBots = 8

// palette is colour-blind-safe (Okabe–Ito) with a grey for the eighth line.
var palette = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#999999"}

// SVG draws the leading bots' headline score over the runs of the board's history, with
// each run's 95 % interval as a band around the bot's line: plain SVG (no script, no
// external references), which GitHub shows as an image. The axes are titled (the score's
// column and its unit; the run's number) and ticked at round values (steps of 1, 2 or 5
// times a power of ten). Bot names are XML-escaped: in an <img> nothing in them can act
// anyway, but the file must stay valid.
func SVG(b *Board) []byte {
	const W, H = 900, 440
	const left, right, top, bottom = 80, 230, 56, 64
	pw, ph := float64(W-left-right), float64(H-top-bottom)
	var lead []string
	for _, r := range b.Rows {
		if len(lead) == chartBots {
			break
		}
		lead = append(lead, r.Bot)
	}
	hist := b.History
	lo, hi := math.Inf(1), math.Inf(-1)
	see := func(v float64) {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	for _, h := range hist {
		for _, name := range lead {
			if v, ok := h.Scores[name]; ok {
				see(v)
			}
			if iv, ok := h.Intervals[name]; ok {
				see(iv.Low)
				see(iv.High)
			}
		}
	}
	if math.IsInf(lo, 0) {
		lo, hi = 0, 1
	}
	ticks, step := niceTicks(lo, hi, 6)
	lo, hi = ticks[0], ticks[len(ticks)-1]
	x := func(i int) float64 {
		if len(hist) < 2 {
			return left + pw/2
		}
		return left + pw*float64(i)/float64(len(hist)-1)
	}
	y := func(v float64) float64 { return top + ph*(hi-v)/(hi-lo) }

	var s strings.Builder
	fmt.Fprintf(&s, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", W, H, W, H)
	fmt.Fprintf(&s, `<title>%s: headline score of the leading bots per run, with 95 %% intervals</title>`+"\n", esc(b.Title))
	fmt.Fprintf(&s, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", W, H)
	fmt.Fprintf(&s, `<text x="%d" y="22" font-size="14" font-weight="bold">%s</text>`+"\n", left, esc(short(b.Title, 60)+": score per run (top "+fmt.Sprint(len(lead))+")"))
	fmt.Fprintf(&s, `<text x="%d" y="40" fill="#555555">Lines: each bot's score in a run. Bands: its 95 %% interval in that run.</text>`+"\n", left)
	// Horizontal grid at the round values.
	d := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	for _, v := range ticks {
		fmt.Fprintf(&s, `<line x1="%d" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#dddddd"/>`+"\n", left, y(v), left+pw, y(v))
		fmt.Fprintf(&s, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", left-6, y(v)+4, fmt.Sprintf("%.*f", d, v))
	}
	fmt.Fprintf(&s, `<text transform="translate(18 %.1f) rotate(-90)" text-anchor="middle">%s</text>`+"\n", top+ph/2, esc(yTitle(b)))
	// Run numbers along the bottom (at most about ten), and the axis's title with the
	// dates of the first and last run.
	every := max(1, (len(hist)+9)/10)
	for i, h := range hist {
		if i%every != 0 && i != len(hist)-1 {
			continue
		}
		fmt.Fprintf(&s, `<text x="%.1f" y="%d" text-anchor="middle">%d</text>`+"\n", x(i), H-bottom+18, h.Run)
	}
	xTitle := "run"
	if len(hist) > 0 {
		first, last := hist[0].Date.UTC().Format("2006-01-02"), hist[len(hist)-1].Date.UTC().Format("2006-01-02")
		xTitle = "run number (" + first
		if last != first {
			xTitle += " to " + last
		}
		xTitle += ")"
	}
	fmt.Fprintf(&s, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", left+pw/2, H-bottom+40, xTitle)
	fmt.Fprintf(&s, `<rect x="%d" y="%d" width="%.1f" height="%.1f" fill="none" stroke="#888888"/>`+"\n", left, top, pw, ph)
	for k, name := range lead {
		colour := palette[k%len(palette)]
		// The band: the intervals' highs left to right, then their lows back.
		var upper, lower []string
		for i, h := range hist {
			if iv, ok := h.Intervals[name]; ok {
				upper = append(upper, fmt.Sprintf("%.1f,%.1f", x(i), y(iv.High)))
				lower = append([]string{fmt.Sprintf("%.1f,%.1f", x(i), y(iv.Low))}, lower...)
			}
		}
		switch {
		case len(upper) > 1:
			fmt.Fprintf(&s, `<polygon points="%s" fill="%s" fill-opacity="0.1" stroke="none"/>`+"\n", strings.Join(append(upper, lower...), " "), colour)
		case len(upper) == 1: // one run: an error bar
			hx, hy, _ := strings.Cut(upper[0], ",")
			_, ly, _ := strings.Cut(lower[0], ",")
			fmt.Fprintf(&s, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-opacity="0.3" stroke-width="6"/>`+"\n", hx, hy, hx, ly, colour)
		}
		var pts []string
		for i, h := range hist {
			v, ok := h.Scores[name]
			if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(i), y(v)))
			fmt.Fprintf(&s, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", x(i), y(v), colour)
		}
		if len(pts) > 1 {
			fmt.Fprintf(&s, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.Join(pts, " "), colour)
		}
		ly := top + 10 + 20*k
		fmt.Fprintf(&s, `<rect x="%.1f" y="%d" width="14" height="4" fill="%s"/>`+"\n", left+pw+12, ly-4, colour)
		fmt.Fprintf(&s, `<text x="%.1f" y="%d">%s</text>`+"\n", left+pw+32, ly, esc(short(name, 26)))
	}
	s.WriteString("</svg>\n")
	return []byte(s.String())
}

// yTitle names the score and its unit: the engine's headline column, and what it counts.
func yTitle(b *Board) string {
	t := headline(b)
	if b.Statistics.Method == stats.MethodWilson {
		return t + " (games won per 100 played)"
	}
	if note := b.Legend[t]; note != "" {
		return t + " (" + short(note, 50) + ")"
	}
	return t
}

// niceTicks returns round values covering [lo, hi] at most about n apart in count: a step
// of 1, 2 or 5 times a power of ten, the first tick at or below lo and the last at or
// above hi.
func niceTicks(lo, hi float64, n int) ([]float64, float64) {
	if hi-lo < 1e-9 {
		pad := math.Max(math.Abs(lo)*0.05, 0.5)
		lo, hi = lo-pad, hi+pad
	}
	raw := (hi - lo) / float64(max(1, n-1))
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 5} {
		if m*mag >= raw-1e-12 {
			step = m * mag
			break
		}
	}
	// Each tick is k·step rounded to the step's decimals: 3 × 0.2 is 0.6000000000000001.
	scale := math.Pow(10, float64(max(0, -int(math.Floor(math.Log10(step)+1e-9)))))
	var ticks []float64
	for k := math.Floor(lo/step + 1e-9); ; k++ {
		t := math.Round(k*step*scale)/scale + 0 // + 0: no -0
		ticks = append(ticks, t)
		if t >= hi-1e-9 || len(ticks) > 2*n+2 {
			break
		}
	}
	return ticks, step
}

// esc escapes text for XML: controls and format characters made visible as on the page
// (mdtext.Visible), then what XML 1.0 forbids dropped.
func esc(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' || r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF {
			return r
		}
		return -1
	}, mdtext.Visible(s))
	return html.EscapeString(s)
}

func short(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
