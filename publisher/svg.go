package publisher

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/kothd/kothd/internal/mdtext"
	"github.com/kothd/kothd/internal/stats"
)

// What the charts share (forest.go draws the run, trend.go the bots that moved): plain
// SVG that GitHub shows as an image, so no script, no external reference, no
// foreignObject, and a generic font family (no web font could load in an <img> anyway).
// Text is placed from an estimate of its width (textWidth) that errs wide, and
// participants' words are cut to fit their column: the browser test checks that every
// text lies inside the picture.

// Okabe–Ito colours, safe for the common colour-vision deficiencies; marks differ in shape
// as well, so no meaning rests on colour alone.
const (
	colourBot    = "#0072B2" // blue: an entered bot
	colourAccent = "#D55E00" // vermillion: a baseline; in the history, the two runs apart
	colourGrid   = "#dddddd"
	colourNote   = "#555555"
)

// unitTitle names the headline score and its unit: the engine's first column and what it
// counts ("Win% (games won per 100 played)").
func unitTitle(b *Board) string {
	t := headline(b)
	if b.Statistics.Method == stats.MethodWilson {
		return t + " (games won per 100 played)"
	}
	if note := b.Legend[t]; note != "" {
		return t + " (" + short(note, 90) + ")"
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
	scale := math.Pow(10, float64(tickDecimals(step)))
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

// tickDecimals is how many decimals a tick step needs.
func tickDecimals(step float64) int { return max(0, -int(math.Floor(math.Log10(step)+1e-9))) }

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

// asciiWidth are the advance widths of the printable ASCII characters (space to tilde) in
// thousandths of the font size, as Arial and Liberation Sans have them (Helvetica's are
// nearly the same): what "sans-serif" is on most readers' machines.
var asciiWidth = [95]int{
	278, 278, 355, 557, 557, 890, 667, 191, 334, 334, 390, 584, 278, 334, 278, 278, // space to /
	557, 557, 557, 557, 557, 557, 557, 557, 557, 557, 278, 278, 584, 584, 584, 557, // 0 to ?
	1016, 667, 667, 723, 723, 667, 611, 778, 723, 278, 500, 667, 557, 834, 723, 778, // @ to O
	667, 778, 723, 667, 611, 723, 667, 944, 667, 667, 611, 278, 278, 278, 470, 557, // P to _
	334, 557, 557, 500, 557, 557, 278, 557, 557, 223, 223, 500, 223, 834, 557, 557, // ` to o
	557, 557, 334, 500, 278, 557, 500, 723, 500, 500, 500, 334, 260, 334, 584, // p to ~
}

// textWidth estimates the width of s in pixels at the font size, erring wide: ASCII at
// Arial's widths and 18 % more (DejaVu Sans, some Linux desktops' sans-serif, is about that
// much wider); other letters of Latin and Greek at 0.8 em, Cyrillic and the rest at 1 em
// (Arabic 1.25 em, its letters alone at their widest), ideographs, kana, Hangul and emoji
// at 1.15 em; marks and joiners nothing. bold adds 10 %.
func textWidth(s string, size float64, bold bool) float64 {
	w := 0.0
	for _, r := range s {
		switch {
		case r >= 0x20 && r < 0x7F:
			w += 1.18 * float64(asciiWidth[r-0x20]) / 1000
		case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf) || r == 0x200C || r == 0x200D || r >= 0xFE00 && r <= 0xFE0F:
		case wide(r):
			w += 1.15
		case unicode.Is(unicode.Arabic, r):
			w += 1.25
		case unicode.IsLetter(r) && r < 0x400:
			w += 0.8
		default:
			w += 1
		}
	}
	if bold {
		w *= 1.1
	}
	return w * size
}

// wide: East Asian wide and fullwidth characters and emoji, about 1 em and more.
func wide(r rune) bool {
	return r >= 0x1100 && r <= 0x115F || r >= 0x2E80 && r <= 0xA4CF || r >= 0xAC00 && r <= 0xD7A3 ||
		r >= 0xF900 && r <= 0xFAFF || r >= 0xFE30 && r <= 0xFE4F || r >= 0xFF00 && r <= 0xFF60 ||
		r >= 0xFFE0 && r <= 0xFFE6 || r >= 0x1F000 && r <= 0x1FAFF || r >= 0x20000 && r <= 0x3FFFD
}

// fit is s made visible (mdtext.Visible: a name shows on the chart as on the page) and cut
// to at most width pixels at the font size, by textWidth, with an ellipsis when cut; not
// yet escaped.
func fit(s string, width, size float64, bold bool) string {
	s = strings.Join(strings.Fields(mdtext.Visible(s)), " ")
	if textWidth(s, size, bold) <= width {
		return s
	}
	r := []rune(s)
	limit := width - textWidth("…", size, bold)
	w := 0.0
	for i, c := range r {
		if w += textWidth(string(c), size, bold); w > limit {
			return strings.TrimRight(string(r[:i]), " ") + "…"
		}
	}
	return s
}

// num writes a number in full for a data attribute: what a test compares with the JSON.
func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// svgOpen starts a chart of the given size: its title and description first (what a
// screen reader announces, and what shows when the file is opened by itself), then a
// white ground, so the chart reads the same on a dark page.
func svgOpen(s *strings.Builder, w, h int, title, desc string) {
	fmt.Fprintf(s, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="13" role="img" aria-labelledby="t d">`+"\n", w, h, w, h)
	fmt.Fprintf(s, "<title id=\"t\">%s</title>\n<desc id=\"d\">%s</desc>\n", esc(title), esc(desc))
	fmt.Fprintf(s, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", w, h)
}

// label writes a text at (x, y) with the given anchor (start, middle, end) and extra
// attributes; t is escaped here.
func label(s *strings.Builder, x, y float64, anchor, attrs, t string) {
	if attrs != "" {
		attrs = " " + attrs
	}
	a := ""
	if anchor != "start" {
		a = ` text-anchor="` + anchor + `"`
	}
	fmt.Fprintf(s, `<text x="%.1f" y="%.1f"%s%s>%s</text>`+"\n", x, y, a, attrs, esc(t))
}

// keyItem is one entry of a chart's key: its mark, drawn with its left at x and its middle
// at y, and its words.
type keyItem struct {
	mark  func(x, y float64) string
	words string
}

// drawKey writes the items from (x0, y) on, starting a new line (18 px down) before an
// item that would pass maxX, and returns the y of its last line.
func drawKey(s *strings.Builder, items []keyItem, x0, y, maxX float64) float64 {
	x := x0
	for _, it := range items {
		w := 18 + textWidth(it.words, 12, false)
		if x > x0 && x+w > maxX {
			x, y = x0, y+18
		}
		s.WriteString(it.mark(x, y) + "\n")
		label(s, x+18, y+4, "start", `font-size="12"`, it.words)
		x += w + 14
	}
	return y
}

// wrap breaks words into lines of at most width pixels at the font size (by textWidth); a
// word wider than a line is cut to fit.
func wrap(words string, width, size float64) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(words) {
		switch {
		case line == "":
			line = w
		case textWidth(line+" "+w, size, false) <= width:
			line += " " + w
		default:
			lines = append(lines, fit(line, width, size, false))
			line = w
		}
	}
	if line != "" {
		lines = append(lines, fit(line, width, size, false))
	}
	return lines
}

// tickLabels writes ticks a step apart as short numbers: to the step's decimals, and
// above ten thousand in thousands, millions or billions ("200M": a Bank Heist score has
// nine digits, and nine-digit labels run into each other).
func tickLabels(ticks []float64, step float64) []string {
	top := 0.0
	for _, t := range ticks {
		top = math.Max(top, math.Abs(t))
	}
	unit, suffix := 1.0, ""
	for _, u := range []struct {
		v float64
		s string
	}{{1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e4, "k"}} {
		if top >= u.v {
			unit, suffix = u.v, u.s
			if u.s == "k" {
				unit = 1e3
			}
			break
		}
	}
	d := tickDecimals(step / unit)
	out := make([]string, len(ticks))
	for i, t := range ticks {
		out[i] = strconv.FormatFloat(t/unit, 'f', d, 64) + suffix
		if t == 0 {
			out[i] = strconv.FormatFloat(0, 'f', d, 64) // "0", not "0M"
		}
	}
	return out
}

// axisTicks picks round ticks over [lo, hi] for an axis of the given length in pixels:
// about n of them, fewer when their labels (at 11 px) would come closer than 8 px side by
// side, or 14 px apart one above the other on a vertical axis.
func axisTicks(lo, hi float64, n int, length float64, vertical bool) ([]float64, []string) {
	for ; ; n-- {
		ticks, step := niceTicks(lo, hi, n)
		labels := tickLabels(ticks, step)
		widest := 0.0
		for _, l := range labels {
			widest = math.Max(widest, textWidth(l, 11, false))
		}
		need := widest + 8
		if vertical {
			need = 14
		}
		if n <= 2 || len(ticks) < 2 || length/float64(len(ticks)-1) >= need {
			return ticks, labels
		}
	}
}
