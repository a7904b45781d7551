package publisher

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"kothd/engine"
)

func sampleBoard() *Board {
	return &Board{
		Challenge: "forty", Title: "Forty", QuestionID: 177765, RunID: 3, Seed: 42, Sandbox: "bwrap",
		Date: time.Date(2026, 11, 21, 4, 0, 0, 0, time.UTC),
		Result: &engine.Result{Games: 100, Columns: []string{"Win%"}, Summary: []string{"100 games"},
			Rows: []engine.Row{{Bot: "A|B", Cells: []string{"60.0"}}, {Bot: "Base", Baseline: true, Cells: []string{"40.0"}}}},
		Bots: map[string]BotInfo{
			"A|B":  {Author: "Jane", Faults: map[engine.Outcome]int{engine.Timeout: 2, engine.Crash: 1}, FirstFault: "timeout: no reply\ninput: {}"},
			"Base": {},
		},
		NotEntered: []Rejected{{AnswerID: 9, Author: "Joe", Name: "X", Status: "rejected", Reason: "no code block in the answer"}},
		Changes:    []string{"new: answer 9, X by Joe"},
	}
}

func TestMarkdown(t *testing.T) {
	md := string(Markdown(sampleBoard()))
	for _, want := range []string{
		"seed `42`", "100 games", "| # | Bot | Author | Win% | Faults |",
		`| 1 | A\|B | Jane | 60.0 | 2 timeout, 1 crash |`, // pipes escaped, faults in a stable order
		"| 2 | Base *(baseline)* | — | 40.0 |  |",
		"## Not entered", "no code block in the answer", "## Faults", "## Changes since the previous run",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestDirSink(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	files := Files(sampleBoard())
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

// Names, authors, reasons and fault texts are the participants' words: whatever they hold,
// they render as text, never as links, images, HTML or page structure.
func TestMarkdownIsInert(t *testing.T) {
	evil := "x](http://evil.example) ![i](http://evil.example/p.png) <img src=x> `code` *em* | cell\r\n# Official leaderboard moved\n```\n</details>"
	b := sampleBoard()
	b.Result.Rows[0].Bot = evil
	b.Result.Rows[0].Cells = []string{evil}
	b.Result.Summary = []string{evil}
	b.Bots = map[string]BotInfo{evil: {Author: evil, Faults: map[engine.Outcome]int{engine.Crash: 1}, FirstFault: "crash: " + evil}}
	b.NotEntered[0].Name, b.NotEntered[0].Reason, b.NotEntered[0].Author = evil, evil, evil
	b.Changes = []string{evil}
	b.Result.Rows[0].Cells = append(b.Result.Rows[0].Cells[:0], evil)
	b.Result.Columns = []string{"Win%"}
	md := string(Markdown(b))
	for _, bad := range []string{"](http://evil", "<img", "\n# Official", "\n```\n</details>", "`code`", "*em*", "\r"} {
		if strings.Contains(md, bad) {
			t.Errorf("rendered page holds live markup %q:\n%s", bad, md)
		}
	}
	// Every table row still has its columns.
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| 1 |") && strings.Count(strings.ReplaceAll(line, `\|`, ""), "|") != 6 {
			t.Errorf("row broken into other columns: %s", line)
		}
	}
	if !strings.Contains(md, "Official leaderboard moved") {
		t.Error("the text itself was dropped instead of escaped")
	}
	long := strings.Repeat("é", 400)
	if c := cell(long); !utf8.ValidString(c) {
		t.Errorf("cutting a long name broke UTF-8: %q", c)
	}
}
