package publisher

import (
	"fmt"
	"html"
	"math"
	"strings"

	"github.com/kothd/kothd/publisher/mdtext"
)

// chartBots is how many of the leading bots the chart follows.
const chartBots = 8

// palette is colour-blind-safe (Okabe–Ito) with a grey for the eighth line.
var palette = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#999999"}

// SVG draws the leading bots' headline score over the runs of the board's history: plain
// SVG (no script, no external references), which GitHub shows as an image. Bot names are
// XML-escaped: in an <img> nothing in them can act anyway, but the file must stay valid.
func SVG(b *Board) []byte {
	const W, H = 900, 420
	const left, right, top, bottom = 70, 230, 40, 50
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
	for _, h := range hist {
		for _, name := range lead {
			if v, ok := h.Scores[name]; ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if math.IsInf(lo, 0) {
		lo, hi = 0, 1
	}
	if hi-lo < 1e-9 {
		lo, hi = lo-1, hi+1
	}
	pad := (hi - lo) * 0.05
	lo, hi = lo-pad, hi+pad
	x := func(i int) float64 {
		if len(hist) < 2 {
			return left + pw/2
		}
		return left + pw*float64(i)/float64(len(hist)-1)
	}
	y := func(v float64) float64 { return top + ph*(hi-v)/(hi-lo) }

	var s strings.Builder
	fmt.Fprintf(&s, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", W, H, W, H)
	fmt.Fprintf(&s, `<title>%s: headline score of the leading bots per run</title>`+"\n", esc(b.Title))
	fmt.Fprintf(&s, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", W, H)
	fmt.Fprintf(&s, `<text x="%d" y="22" font-size="14" font-weight="bold">%s</text>`+"\n", left, esc(b.Title+": score per run (top "+fmt.Sprint(len(lead))+")"))
	// Horizontal grid with five labelled values.
	for k := 0; k <= 4; k++ {
		v := lo + (hi-lo)*float64(k)/4
		fmt.Fprintf(&s, `<line x1="%d" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#dddddd"/>`+"\n", left, y(v), left+pw, y(v))
		fmt.Fprintf(&s, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", left-6, y(v)+4, esc(axisLabel(v, hi-lo)))
	}
	// Run labels along the bottom (at most about ten).
	step := max(1, (len(hist)+9)/10)
	for i, h := range hist {
		if i%step != 0 && i != len(hist)-1 {
			continue
		}
		fmt.Fprintf(&s, `<text x="%.1f" y="%d" text-anchor="middle">%d</text>`+"\n", x(i), H-bottom+18, h.Run)
	}
	fmt.Fprintf(&s, `<text x="%.1f" y="%d" text-anchor="middle">run</text>`+"\n", left+pw/2, H-12)
	fmt.Fprintf(&s, `<rect x="%d" y="%d" width="%.1f" height="%.1f" fill="none" stroke="#888888"/>`+"\n", left, top, pw, ph)
	for k, name := range lead {
		colour := palette[k%len(palette)]
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

func axisLabel(v, span float64) string {
	d := decimals(span / 4)
	return fmt.Sprintf("%.*f", d, v)
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
