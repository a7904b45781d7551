package cron_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/cron/crontest"
	"github.com/kothd/kothd/publisher"
	"github.com/kothd/kothd/scraper"
)

// A real forty cycle with an answer whose four lines make 40,000 classes, and one whose
// heading, author and a class's name hold a right-to-left override (U+202E) and NUL or ESC (Python refuses
// NUL in a class's name). The
// 40,000 classes become one not-entered record (on the board and in the store), the board
// stays small, and the override and NUL reach neither the page nor the JSON file raw: the
// page shows them, the JSON escapes them and still carries the exact strings.
func TestBoardBoundedAndInert(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	snap := filepath.Join(dir, "snap")
	crontest.WriteSnapshot(t, snap, 177765, []string{
		"<h1>Many</h1><pre><code>class Many(Bot):\n    def make_throw(self, scores, last_round):\n        yield False\n" +
			"for i in range(39999):\n    globals()['C%d' % i] = type('C%d' % i, (Bot,), {'make_throw': Many.make_throw})\n</code></pre>",
		"<h1>Evil\u202eToh\u202c</h1><pre><code>class Fine(Bot):\n    def make_throw(self, scores, last_round):\n        yield False\n" +
			"n = 'Evil\\u202eTo\\x1bh'\nglobals()[n] = type(n, (Bot,), {'make_throw': Fine.make_throw})\n</code></pre>",
	})
	// The author's display name, as the API would send it.
	answers := filepath.Join(snap, "codegolf", "177765", "answers.1.json")
	raw, err := os.ReadFile(answers)
	if err != nil {
		t.Fatal(err)
	}
	const evilAuthor = "Mal\u202elory\x00"
	evil, _ := json.Marshal(evilAuthor)
	if err := os.WriteFile(answers, []byte(strings.Replace(string(raw), `"userB"`, string(evil), 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	cy := crontest.NewCycle(t, dir)
	cy.Source = scraper.Snapshot{Dir: snap, Site: "codegolf"}
	cy.Out = tlog{t}
	ch, _ := cy.Config.Challenge("forty")
	crontest.Patient(ch)
	ch.Baselines = false
	rep, err := cy.Run(context.Background(), ch, cron.Options{Games: 4})
	if err != nil {
		t.Fatalf("the cycle failed: %v", err)
	}
	for _, r := range rep.Rejected {
		t.Logf("not entered: %d %q %q %q %q", r.AnswerID, r.Author, r.Name, r.Status, r.Reason)
	}
	if rep.Entered != 11 { // Many and C0–C8, Fine
		t.Errorf("entered %d bots, want 11", rep.Entered)
	}
	var many []publisher.Rejected
	for _, r := range rep.Rejected {
		if r.AnswerID == 177766 {
			many = append(many, r)
		}
	}
	if len(many) != 1 || !strings.Contains(many[0].Reason, "40,000 competing classes; only the first 10 may compete (limits.classes_per_answer)") ||
		many[0].Name != "C9, C10, C11 and 39,987 more" {
		t.Fatalf("the 40,000-class answer's records: %+v", many)
	}

	md, err := os.ReadFile(filepath.Join(cy.Config.OutputDir, "forty.md"))
	if err != nil {
		t.Fatal(err)
	}
	js, err := os.ReadFile(filepath.Join(cy.Config.OutputDir, "forty.json"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("board: forty.md %d bytes, forty.json %d bytes", len(md), len(js))
	if len(md) > 500<<10 || len(js) > 500<<10 {
		t.Errorf("board of %d bytes (md) and %d (json), want both under 500 KB", len(md), len(js))
	}
	if strings.Count(string(md), "C10") != 1 {
		t.Errorf("the page names C10 %d times, want once (in the answer's one record)", strings.Count(string(md), "C10"))
	}

	// In the store: one record of the answer's bots beyond the cap, not one per class.
	var rows int
	if err := cy.Store.DB().QueryRow(`SELECT count(*) FROM bots b JOIN answers a ON a.revision_id = b.revision_id WHERE a.answer_id = 177766`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows > 11 {
		t.Errorf("the store holds %d bot records of the answer, want at most 11 (10 classes and one for the rest)", rows)
	}
	var size int64
	if err := cy.Store.DB().QueryRow(`SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()`).Scan(&size); err != nil {
		t.Fatal(err)
	}
	t.Logf("store: %d bytes, %d bot records of the 40,000-class answer", size, rows)

	// Neither the page nor the JSON file holds the override or NUL raw.
	for name, file := range map[string][]byte{"forty.md": md, "forty.json": js} {
		if s := string(file); strings.ContainsAny(s, "\u202e\u202c\x00") {
			t.Errorf("%s holds a raw U+202E, U+202C or NUL", name)
		}
	}
	// The answer's heading (Evil⟨U+202E⟩Toh⟨U+202C⟩) would show in the changes list, which a
	// first run does not have (it says it is the first); the class name and the author
	// carry the same characters onto this board.
	page := string(md)
	for _, want := range []string{"Evil⟨U+202E⟩To␛h", "Mal⟨U+202E⟩lory␀"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q (the override and NUL made visible)", want)
		}
	}
	var b publisher.Board
	if err := json.Unmarshal(js, &b); err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, r := range b.NotEntered {
		found[r.Name] = true
		found[r.Author] = true
	}
	for _, c := range b.Changes {
		found[c.Title], found[c.Author] = true, true
	}
	for _, want := range []string{"Evil\u202eTo\x1bh", evilAuthor} {
		if !found[want] {
			t.Errorf("the JSON lacks the exact string %q", want)
		}
	}
}

type tlog struct{ t *testing.T }

func (l tlog) Write(p []byte) (int, error) { l.t.Logf("%s", p); return len(p), nil }
