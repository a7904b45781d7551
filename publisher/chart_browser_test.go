package publisher

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// measureCharts runs in the page once it is laid out: for every chart, each text's box in
// the chart's own units (getBBox) against its viewBox, any two texts that overlap, and the
// chart's box on the page against the content column.
const measureCharts = `<script>
const body = document.querySelector('.markdown-body'), cs = getComputedStyle(body), r0 = body.getBoundingClientRect();
const box = {left: r0.left + parseFloat(cs.paddingLeft), right: r0.right - parseFloat(cs.paddingRight)};
const charts = [...document.querySelectorAll('svg')].map(svg => {
  const vb = svg.viewBox.baseVal, r = svg.getBoundingClientRect();
  const texts = [...svg.querySelectorAll('text')].map(t => ({s: t.textContent, b: t.getBBox()}));
  const out = texts.filter(t => t.b.x < vb.x - 0.5 || t.b.y < vb.y - 0.5 || t.b.x + t.b.width > vb.x + vb.width + 0.5 || t.b.y + t.b.height > vb.y + vb.height + 0.5)
    .map(t => t.s + ' ' + JSON.stringify([t.b.x, t.b.y, t.b.width, t.b.height]));
  const overlaps = [];
  for (let i = 0; i < texts.length; i++) for (let j = i + 1; j < texts.length; j++) {
    const a = texts[i].b, b = texts[j].b;
    const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x), h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
    if (w > 1 && h > 3) overlaps.push(texts[i].s + ' / ' + texts[j].s);
  }
  for (const p of svg.querySelectorAll('rect.plot')) {
    const a = p.getBBox();
    for (const t of texts) {
      const b = t.b, w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x), h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
      if (w > 1 && h > 1) overlaps.push(t.s + ' / the plot');
    }
  }
  return {name: svg.getAttribute('data-name'), texts: texts.length, out, overlaps, left: r.left, right: r.right, width: r.width, viewBox: vb.width};
});
window.measured = {viewport: document.documentElement.clientWidth, page: document.documentElement.scrollWidth, left: box.left, right: box.right, charts};
</script>`

// The charts lay out in a real browser at a desktop's column (980 px) and a phone's (390
// px) with nothing cut: every text lies inside its chart's viewBox (measured by the
// browser, in the font it picks for sans-serif), no two texts overlap nor a text a plot
// (a name running into the bars), the chart fits the
// content column (scaled down as GitHub scales an image: max-width 100 %), and the page
// does not scroll sideways. The boards: a first run, a history of fifteen runs with two
// movers, a field of 48 bots with the longest and widest names a board can hold, and one of
// 150 bots without intervals (rank ranges "1–150"). A
// screenshot of both widths is left in the test's temporary directory (KOTHD_BROWSER_DIR
// keeps it, with the charts as files).
func TestChartsFitInBrowser(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	if keep := os.Getenv("KOTHD_BROWSER_DIR"); keep != "" {
		dir = keep
	}
	hist := chartHistory()
	charts := []struct {
		name string
		svg  []byte
	}{
		{"first-run", Forest(chartFirstRun())},
		{"history-run", Forest(hist)},
		{"history-movers", HistorySVG(hist)},
		{"field-48", Forest(chartField())},
		{"history-none", HistorySVG(chartField())},
		{"unmeasured-150", Forest(chartUnmeasured())},
	}
	var body strings.Builder
	for _, c := range charts {
		if err := os.WriteFile(filepath.Join(dir, c.name+".svg"), c.svg, 0o644); err != nil {
			t.Fatal(err)
		}
		// Inline, so the page can measure it; sized as GitHub sizes an <img> of it.
		svg := strings.Replace(string(c.svg), "<svg ", `<svg data-name="`+c.name+`" style="max-width:100%;height:auto;display:block" `, 1)
		fmt.Fprintf(&body, "<p>%s</p>\n", svg)
	}
	// Once more in DejaVu Sans, a wide sans-serif some Linux desktops pick (where it is
	// installed; elsewhere the browser's default again), below the screenshot's fold.
	for _, c := range charts {
		svg := strings.Replace(string(c.svg), `font-family="sans-serif"`, `font-family="DejaVu Sans"`, 1)
		svg = strings.Replace(svg, "<svg ", `<svg data-name="`+c.name+` (DejaVu Sans)" style="max-width:100%;height:auto;display:block" `, 1)
		fmt.Fprintf(&body, "<p>%s</p>\n", svg)
	}
	measured, shot := layOut(t, bin, dir, "charts", body.String(), measureCharts, 3400)
	widths := browserWidths
	var got []struct {
		Viewport, Page int
		Left, Right    float64
		Charts         []struct {
			Name                        string
			Texts                       int
			Out, Overlaps               []string
			Left, Right, Width, ViewBox float64
		}
	}
	if err := json.Unmarshal(measured, &got); err != nil || len(got) != len(widths) {
		t.Fatalf("measurements %s: %v", measured, err)
	}
	for i, width := range widths {
		g := got[i]
		if g.Viewport != width {
			t.Fatalf("the viewport is %d px, not the %d asked for: the measurement would mean nothing", g.Viewport, width)
		}
		if len(g.Charts) != 2*len(charts) {
			t.Fatalf("at %d px the page has %d charts, want %d", width, len(g.Charts), 2*len(charts))
		}
		if g.Page > g.Viewport {
			t.Errorf("at %d px the page scrolls sideways: %d px wide", width, g.Page)
		}
		for _, c := range g.Charts {
			t.Logf("%d px: %s: %d texts, drawn %.0f px wide (of %.0f), column %.0f–%.0f", width, c.Name, c.Texts, c.Width, c.ViewBox, g.Left, g.Right)
			if c.Texts == 0 {
				t.Errorf("at %d px %s has no text", width, c.Name)
			}
			for _, o := range c.Out {
				t.Errorf("at %d px %s cuts a text: %s", width, c.Name, o)
			}
			for _, o := range c.Overlaps {
				t.Errorf("at %d px %s has texts over each other: %s", width, c.Name, o)
			}
			if c.Left < g.Left-0.5 || c.Right > g.Right+0.5 {
				t.Errorf("at %d px %s spans %.0f–%.0f px, outside the column %.0f–%.0f", width, c.Name, c.Left, c.Right, g.Left, g.Right)
			}
		}
	}
	t.Logf("screenshot of both widths: %s", shot)
}
