package publisher

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	ghtml "github.com/yuin/goldmark/renderer/html"

	"github.com/kothd/kothd/engine"
)

// githubCSS approximates how GitHub shows a markdown file: its markdown-body font, table
// cells and borders, and the tables' own box (display: block; width: max-content;
// max-width: 100 %; overflow: auto: a table wider than the column scrolls inside itself),
// in a column of 980 px at most with 32 px of padding, 16 px on a phone.
const githubCSS = `
body { margin: 0; background: #fff; }
.markdown-body { box-sizing: border-box; max-width: 980px; margin: 0 auto; padding: 32px;
  font-family: -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; font-size: 16px;
  line-height: 1.5; word-wrap: break-word; color: #1f2328; }
@media (max-width: 767px) { .markdown-body { padding: 16px; } }
.markdown-body table { display: block; width: max-content; max-width: 100%; overflow: auto;
  border-spacing: 0; border-collapse: collapse; margin: 0 0 16px; }
.markdown-body th { font-weight: 600; }
.markdown-body th, .markdown-body td { padding: 6px 13px; border: 1px solid #d1d9e0; }
.markdown-body tr:nth-child(2n) { background: #f6f8fa; }
.markdown-body img { max-width: 100%; }
.markdown-body pre { overflow: auto; padding: 16px; background: #f6f8fa; }
.markdown-body a { color: #0969da; text-decoration: none; }
`

// measure runs in the page once it is laid out and keeps what it measured on the window.
const measure = `<script>
const box = document.querySelector('.markdown-body');
const tables = [...document.querySelectorAll('table')].map(t => ({scroll: t.scrollWidth, client: t.clientWidth}));
window.measured = {viewport: document.documentElement.clientWidth, page: document.documentElement.scrollWidth, column: box.clientWidth, tables};
</script>`

// frames shows the page at each width in an iframe of that width, side by side: an
// iframe is a viewport of its own (its media queries see its width), and headless
// Chromium's window is at least 500 px wide. Once all have loaded, it writes their

// browserWidths are the widths the layout tests lay the board out at: GitHub's column on
// a desktop and a phone's.
var browserWidths = []int{980, 390}

// layOut lays body (the board's HTML) out in headless Chromium at each of browserWidths,
// side by side, with script measuring the page into the attribute data-measured, leaves a
// screenshot name.png in dir and returns the measurement (JSON, one entry per width).
func layOut(t *testing.T, bin, dir, name, body, script string, height int) (measured []byte, shot string) {
	t.Helper()
	page := `<!DOCTYPE html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><style>` +
		githubCSS + `</style></head><body><article class="markdown-body">` + body + `</article>` + script + `</body></html>`
	index := filepath.Join(dir, name+".html")
	if err := os.WriteFile(index, []byte(frames(page, browserWidths, height)), 0o644); err != nil {
		t.Fatal(err)
	}
	shot = filepath.Join(dir, name+".png")
	cmd := exec.Command(bin, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
		"--hide-scrollbars", "--user-data-dir="+filepath.Join(dir, "profile"), fmt.Sprintf("--window-size=%d,%d", 980+20+390, height),
		"--screenshot="+shot, "--dump-dom", "file://"+index)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	m := regexp.MustCompile(`data-measured="([^"]*)"`).FindSubmatch(dom)
	if m == nil {
		t.Fatalf("the page wrote no measurements:\n%.2000s", dom)
	}
	return []byte(html.UnescapeString(string(m[1]))), shot
}

// measurements into its DOM, where --dump-dom shows them.
func frames(page string, widths []int, height int) string {
	var f strings.Builder
	f.WriteString(`<!DOCTYPE html><html><head><meta charset="utf-8"><style>body{margin:0;display:flex;gap:20px;align-items:flex-start;background:#888}iframe{border:0;background:#fff}</style></head><body>`)
	for _, w := range widths {
		fmt.Fprintf(&f, `<iframe width="%d" height="%d" srcdoc="%s"></iframe>`, w, height, html.EscapeString(page))
	}
	f.WriteString(`<script>window.addEventListener('load', () => {
  const out = [...document.querySelectorAll('iframe')].map(f => f.contentWindow.measured);
  document.body.setAttribute('data-measured', JSON.stringify(out));
});</script></body></html>`)
	return f.String()
}

// chromium finds a headless Chromium: Debian's chromium, or another of its names.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed (scripts/setup.sh installs it); in CI this test must run")
	}
	t.Skip("chromium is not installed: skipping the layout test in a real browser (scripts/setup.sh installs it; in CI it runs)")
	return ""
}

// layoutBoard is a board as wide as a real one gets: forty's field of names, a name of 64
// characters (limits.name_max) without a blank, a long author, tie groups and moves, and
// the challenge's eight columns.
func layoutBoard() *Board {
	names := []string{"FortyTeen", "AggressiveStalker", "PointsAreForNerdsBot", "FlipCoinRollDice", "MatchLeaderBot",
		"ThisBotHasTheLongestNameTheCapAllowsSoTheLayoutMustBreakItSome64", "Roll6Timesv2", "GoToTenBot", "ThrowTwiceBot", "EnsureLead",
		"Zalgo_is_coming_for_the_board_with_underscores", "StopBot"}
	authors := []string{"Dmitri Volkov", "Lena Okafor", "quarkmonger", "Marta Quiroga", "Ingrid Solberg",
		"Maximiliana Featherstonehaugh-Cholmondeley", "Chiara Bellini", "", "", "Hamish McTavish", "Bits & Bobs", "quarkmonger"}
	var rows []engine.Row
	bots := map[string]BotInfo{}
	for i, n := range names {
		wins := 1500 - 100*i
		row := engine.Row{Bot: n, Score: 100 * float64(wins) / 6000, Played: 6000, Wins: wins, Baseline: authors[i] == ""}
		row.Cells = []string{fmt.Sprintf("%.1f", row.Score), fmt.Sprint(wins), "6000", "61", "23.21", "46.61", "3.56", "41.01"}
		rows = append(rows, row)
		bots[n] = BotInfo{Bot: answerBot(authors[i], 177771+int64(i)), Faults: Faults{engine.Crash: 457, engine.Timeout: 12}, FirstFault: "crash: TypeError: 'bool' object is not iterable\ninput: " + strings.Repeat(`{"scores":[17,5,4,0,0,1,1,0]}`, 8)}
	}
	prev := Build(Input{Challenge: "forty", Title: "Forty", Engine: "forty", QuestionID: 177765, RunID: 1, Seed: 1, Date: time.Now(),
		Result: &engine.Result{Games: 6000, Columns: []string{"Win%"}, Rows: reversed(rows), WinRate: true}, Bots: bots})
	next := time.Date(2026, 11, 22, 4, 0, 0, 0, time.UTC)
	in := Input{Challenge: "forty", Title: "A game of dice, but avoid number 6", Engine: "forty", QuestionID: 177765, RunID: 2, Seed: 42,
		Sandbox: "bwrap", Date: time.Date(2026, 11, 21, 4, 0, 0, 0, time.UTC), NextRun: &next, Previous: prev,
		Result: &engine.Result{Games: 6000, Rows: rows, WinRate: true, Summary: []string{"Simulation or 6000 games between 12 bots completed in 9 seconds"},
			Columns: []string{"Win%", "Wins", "Played", "Max", "Avg", "Avg win", "Throws", "Success%"},
			Legend:  map[string]string{"Win%": "games won per 100 played", "Throws": "mean throws per turn"}},
		Bots:       bots,
		NotEntered: []Rejected{{AnswerID: 177790, Author: "userA", Name: "C9, C10, C11 and 39,987 more", Status: "rejected", Reason: "40,000 competing classes; only the first 10 may compete (limits.classes_per_answer)"}},
		History:    []HistoryRun{{Run: 1, Date: time.Date(2026, 11, 20, 4, 0, 0, 0, time.UTC), Scores: map[string]float64{"FortyTeen": 20, "StopBot": 22}}},
	}
	return Build(in)
}

func reversed(rows []engine.Row) []engine.Row {
	out := make([]engine.Row, len(rows))
	for i, r := range rows {
		out[len(rows)-1-i] = r
	}
	return out
}

// The main table fits GitHub's content column on a desktop (980 px) and on a phone (390
// px) in a real browser: it does not scroll sideways, nor does the page. The page is the
// board's markdown rendered as GitHub does (goldmark, GFM, raw HTML kept) in a GitHub-like
// stylesheet, laid out by headless Chromium, which writes its measurements into the DOM.
// Screenshots of both widths are left in the test's temporary directory.
func TestBoardFitsInBrowser(t *testing.T) {
	bin := chromium(t)
	b := layoutBoard()
	var body bytes.Buffer
	md := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(ghtml.WithUnsafe()))
	if err := md.Convert(Markdown(b), &body); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if keep := os.Getenv("KOTHD_BROWSER_DIR"); keep != "" { // to keep the screenshot
		dir = keep
	}
	if err := os.WriteFile(filepath.Join(dir, ChartName(b.Challenge)), Forest(b), 0o644); err != nil {
		t.Fatal(err)
	}
	measured, shot := layOut(t, bin, dir, "forty", body.String(), measure, 2400)
	widths := browserWidths
	var got []struct {
		Viewport, Page, Column int
		Tables                 []struct{ Scroll, Client int }
	}
	if err := json.Unmarshal(measured, &got); err != nil || len(got) != len(widths) {
		t.Fatalf("measurements %s: %v", measured, err)
	}
	if _, err := os.Stat(shot); err != nil {
		t.Errorf("no screenshot: %v", err)
	}
	for i, width := range widths {
		g := got[i]
		t.Logf("%d px: viewport %d, column %d, page %d; main table %d of %d px; all tables %v", width, g.Viewport, g.Column, g.Page, g.Tables[0].Scroll, g.Tables[0].Client, g.Tables)
		if g.Viewport != width {
			t.Fatalf("the viewport is %d px, not the %d asked for: the measurement would mean nothing", g.Viewport, width)
		}
		if main := g.Tables[0]; main.Scroll > main.Client || main.Client > g.Column {
			t.Errorf("at %d px the main table overflows: %d px of content in %d (column %d)", width, main.Scroll, main.Client, g.Column)
		}
		if g.Page > g.Viewport {
			t.Errorf("at %d px the page scrolls sideways: %d px wide", width, g.Page)
		}
	}
	t.Logf("screenshot of both widths: %s", shot)
}
