package publisher

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	ghtml "github.com/yuin/goldmark/renderer/html"

	"github.com/kothd/kothd/engine"
)

// answerBot is a participant's bot as the board sees it: its author and answer.
func answerBot(author string, answer int64) engine.Bot {
	return engine.Bot{Entrant: engine.Entrant{Author: author}, AnswerID: answer}
}

// sampleInput is a forty-like run: win rates, two bots with identical scores, a
// baseline, a faulty bot, a rejected answer and a new answer.
func sampleInput() Input {
	rows := []engine.Row{
		{Bot: "Leader", Score: 30, Played: 4000, Wins: 1200},
		{Bot: "A|B", Score: 20.5, Played: 4000, Wins: 820},
		{Bot: "Close", Score: 20, Played: 4000, Wins: 800},
		{Bot: "TwinOne", Score: 10, Played: 4000, Wins: 400},
		{Bot: "TwinTwo", Score: 10, Played: 4000, Wins: 400},
		{Bot: "Base", Baseline: true, Score: 0, Played: 4000, Wins: 0},
	}
	for i := range rows {
		rows[i].Cells = []string{fmt.Sprintf("%.1f", rows[i].Score)}
	}
	return Input{
		Challenge: "forty", Title: "Forty", Engine: "forty", QuestionID: 177765, RunID: 3, Seed: 42, Sandbox: "bwrap",
		Date:   time.Date(2026, 11, 21, 4, 0, 0, 0, time.UTC),
		Result: &engine.Result{Games: 4000, Columns: []string{"Win%"}, Summary: []string{"4000 games"}, Rows: rows, WinRate: true},
		Bots: map[string]BotInfo{
			"Leader":  {Bot: answerBot("Ann", 11), Revision: 5, ContentHash: "ab12"},
			"A|B":     {Bot: answerBot("Jane", 12), Faults: Faults{engine.Timeout: 2, engine.Crash: 1}, FirstFault: "timeout: no reply\ninput: {}"},
			"Close":   {Bot: answerBot("Bob", 13)},
			"TwinOne": {Bot: answerBot("Cy", 14)},
			"TwinTwo": {Bot: answerBot("Cy", 14)},
		},
		NotEntered: []Rejected{{AnswerID: 9, Author: "Joe", Name: "X", Status: "rejected", Reason: "no code block in the answer"}},
		Changes:    []Change{{Kind: "new", AnswerID: 9, Title: "X", Author: "Joe"}},
	}
}

// render turns markdown into HTML as GitHub does (GFM: tables, strikethrough, autolinks,
// task lists; raw HTML passed through, as GitHub passes what its sanitiser allows) and
// parses it.
func render(t *testing.T, md []byte) (*goquery.Document, string) {
	t.Helper()
	var out bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(ghtml.WithUnsafe())).Convert(md, &out); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(out.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return doc, out.String()
}

// shown is the text a reader sees: word joiners are invisible.
func shown(s *goquery.Selection) string { return strings.ReplaceAll(s.Text(), wordJoiner, "") }

func TestMarkdownTable(t *testing.T) {
	b := Build(sampleInput())
	doc, html := render(t, Markdown(b))
	columns := func(table *goquery.Selection) string {
		var cols []string
		table.Find("th").Each(func(_ int, s *goquery.Selection) { cols = append(cols, shown(s)) })
		return strings.Join(cols, "|")
	}
	// Rows of a table by the bot's name (the text of the bot cell's link, or the cell).
	byBot := func(table *goquery.Selection) (map[string][]string, map[string]string) {
		rows, links := map[string][]string{}, map[string]string{}
		table.Find("tbody tr").Each(func(_ int, tr *goquery.Selection) {
			var cells []string
			tr.Find("td").Each(func(_ int, td *goquery.Selection) { cells = append(cells, shown(td)) })
			td := tr.Find("td").Eq(1)
			name := cells[1]
			if a := td.Find("a"); a.Length() > 0 {
				name = shown(a)
				links[name], _ = a.Attr("href")
			} else {
				name, _, _ = strings.Cut(name, "baseline")
			}
			rows[name] = cells
		})
		return rows, links
	}
	main, all := doc.Find("table").Eq(0), doc.Find("details table").First()
	if got := columns(main); got != "#|Bot|Win% (95 % interval)" {
		t.Errorf("main table's columns %q", got)
	}
	if got := columns(all); got != "#|Bot|Win%|Games|Faults" {
		t.Errorf("second table's columns %q", got)
	}
	rows, links := byBot(main)
	details, _ := byBot(all)
	if rows["A|B"] == nil || rows["Base"] == nil || details["A|B"] == nil {
		t.Fatalf("rows %v\n%s", rows, html)
	}
	if links["Leader"] != "https://codegolf.stackexchange.com/a/11" || links["A|B"] != "https://codegolf.stackexchange.com/a/12" {
		t.Errorf("bot names not linked to their answers: %v", links)
	}
	if _, ok := links["Base"]; ok {
		t.Error("a baseline has no answer to link to")
	}
	if got := rows["Leader"][1]; got != "Leaderby Ann" { // a line break between
		t.Errorf("Leader's bot cell %q, want its name and author", got)
	}
	// 20.5 % against 20.0 % over 4000 games is noise: ranks 2–3 each. 30 % is clear of it;
	// identical scores share a rank; 0 % is clear of 10 %.
	for bot, want := range map[string]string{"Leader": "1", "A|B": "2–3", "Close": "2–3", "TwinOne": "4", "TwinTwo": "4", "Base": "6"} {
		if got := rows[bot][0]; got != want {
			t.Errorf("%s ranked %q, want %q", bot, got, want)
		}
	}
	if got := details["A|B"][4]; got != "2 timeout, 1 crash" {
		t.Errorf("faults %q", got)
	}
	// six bots: each interval at 1 − 5 %/6, z = 2.64 (the 95 % one alone is 28.6–31.4)
	if got := rows["Leader"][2]; got != "30.0 (28.1–31.9)" {
		t.Errorf("Leader's score %q, want 30.0 and the simultaneous Wilson interval 28.1–31.9", got)
	}
	// Answer 9 is new to the site and did not enter: not "new".
	for _, want := range []string{"seed 42", "Wilson", "Bonferroni", "rank range", "Not entered", "no code block in the answer", "Changes since the previous run", "new, not entered: X by Joe",
		"Next run: when the host runs it", "#: the bot's rank range", "in brackets its 95 % interval", "Faults: the bot's decisions"} {
		if !strings.Contains(shown(doc.Selection), want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// Names, authors, reasons and fault texts are the participants' words: whatever they hold,
// they render as the text they are, never as links, images, HTML or page structure.
func TestMarkdownIsInert(t *testing.T) {
	evils := []string{
		"x](http://evil.example) ![i](http://evil.example/p.png) <img src=x> `code` *em* | cell\r\n# Official leaderboard moved\n```\n</details>",
		"see https://evil.example/x and www.evil.example or mail me@evil.example, <http://evil.example>",
		`O'Brien says "quotes" & <b>bold</b> &amp; &#39; \* 1. not a list`,
		"[ref]: http://evil.example\n[ref]",
	}
	for _, evil := range evils {
		in := sampleInput()
		in.Result.Rows[1].Bot = evil
		in.Result.Rows[1].Cells = []string{evil}
		in.Result.Summary = []string{evil}
		in.Result.Columns = []string{"Win%"}
		in.Bots[evil] = BotInfo{Bot: answerBot(evil, 12), Faults: Faults{engine.Crash: 1}, FirstFault: "crash: " + evil}
		in.NotEntered[0].Name, in.NotEntered[0].Reason, in.NotEntered[0].Author = evil, evil, evil
		in.Changes = []Change{{Kind: "edited", AnswerID: 9, Title: evil, Author: evil}}
		in.Title = evil
		b := Build(in)
		doc, html := render(t, Markdown(b))
		doc.Find("a").Each(func(_ int, a *goquery.Selection) {
			href, _ := a.Attr("href")
			if !strings.HasPrefix(href, "https://codegolf.stackexchange.com/") {
				t.Errorf("participants' text made a link to %q:\n%s", href, html)
			}
		})
		// The one image is the run's chart (its alt text holds the title, inert in an attribute).
		if n := doc.Find("img:not([src='forty.svg']), b, em code, h2:contains('Official')").Length(); n > 0 {
			t.Errorf("participants' text made %d elements:\n%s", n, html)
		}
		if n := doc.Find("img").Length(); n != 1 {
			t.Errorf("%d images, want the run's chart alone:\n%s", n, html)
		}
		if n := doc.Find("h1").Length(); n != 1 {
			t.Errorf("%d headings of level 1", n)
		}
		text := shown(doc.Selection)
		flat := strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(evil)
		if !strings.Contains(text, flat) {
			t.Errorf("text does not read as written:\nwant %q\npage %q", flat, text)
		}
		pre := shown(doc.Find("pre"))
		if !strings.Contains(pre, strings.ReplaceAll(strings.TrimSpace(evil), "\r", "")) {
			t.Errorf("first fault does not read as written: %q", pre)
		}
		for _, line := range strings.Split(string(Markdown(b)), "\n") {
			// The main table has 3 columns; the second, 5 (#, Bot, Win%, Games, Faults).
			if n := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|"); strings.HasPrefix(line, "| 2–3 |") && n != 4 && n != 6 {
				t.Errorf("row broken into other columns: %s", line)
			}
		}
	}
	if c := cell(strings.Repeat("é", 400)); !utf8.ValidString(c) {
		t.Errorf("cutting a long name broke UTF-8: %q", c)
	}
}

func TestDirSink(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	files := Files(Build(sampleInput()))
	if _, ok := files["forty/runs/3.json"]; !ok {
		t.Fatalf("no archive entry in %v", keys(files))
	}
	if _, err := (Dir{Path: dir}).Publish(context.Background(), files, ""); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(got) != string(content) {
			t.Errorf("%s not written as given: %v", name, err)
		}
	}
	if Hash(files) == Hash(map[string][]byte{"forty.md": files["forty.md"]}) {
		t.Error("hash ignores a file")
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
