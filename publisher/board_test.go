package publisher

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
