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
	"github.com/kothd/kothd/scraper"
)

// A whole cycle with answers that attack the entry rules (issue 10, items 2 and 3): a class
// named with 140,000 characters (once a launch failure counted as a host fault, which
// stopped the challenge for good), an answer of 150 classes made by a loop (once 462
// processes and 1 GB), and more bots than the challenge takes. The cycle completes; what
// exceeds a cap is not entered, with the cap named; the rest play.
func TestCapsAreNotEnteredReasons(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	crontest.WriteSnapshot(t, filepath.Join(dir, "snap"), 177765, []string{
		"<h1>A</h1><pre><code>class A(Bot):\n    def make_throw(self, scores, last_round):\n        yield False\n</code></pre>",
		"<h1>Long</h1><pre><code>class Fine(Bot):\n    def make_throw(self, scores, last_round):\n        yield False\n" +
			"n = 'L' + 'o' * 140000 + 'ng'\nglobals()[n] = type(n, (Bot,), {})\n</code></pre>",
		"<h1>Many</h1><pre><code>class Many(Bot):\n    def make_throw(self, scores, last_round):\n        yield False\n" +
			"for i in range(149):\n    globals()['M%d' % i] = type('M%d' % i, (Many.__bases__[0],), {'make_throw': Many.make_throw})\n</code></pre>",
		"<h1>Late</h1><pre><code>class Late(Bot):\n    def make_throw(self, scores, last_round):\n        yield False\n</code></pre>",
	})
	cy := crontest.NewCycle(t, dir)
	cy.Source = scraper.Snapshot{Dir: filepath.Join(dir, "snap"), Site: "codegolf"}
	ch, _ := cy.Config.Challenge("forty")
	crontest.Patient(ch) // played beside other tests: no call may time out
	ch.Baselines = false
	ch.Limits.ClassesPerAnswer = 3
	ch.Limits.BotsPerChallenge = 5
	rep, err := cy.Run(context.Background(), ch, cron.Options{Games: 10})
	if err != nil {
		t.Fatalf("the cycle failed: %v", err)
	}
	if rep.Entered != 5 || rep.Games != 10 {
		t.Fatalf("entered %d, games %d; want 5 bots (A, Fine, Many, M0, M1) and 10 games", rep.Entered, rep.Games)
	}
	reasons := map[string]string{}
	for _, r := range rep.Rejected {
		reasons[r.Name] = r.Status + ": " + r.Reason
	}
	if len(rep.Rejected) != 3 {
		t.Errorf("%d not entered, want 3 (the long name, one record of the 147 classes over the cap, Late)", len(rep.Rejected))
	}
	var long string
	for name, why := range reasons {
		if strings.HasPrefix(name, "Looo") {
			long = name
			if !strings.Contains(why, "140003 characters") || !strings.Contains(why, "name_max") {
				t.Errorf("long name refused with %q", why)
			}
		}
	}
	if long == "" || len(long) > 200 {
		t.Errorf("the long name is recorded as %d bytes (want it, cut short)", len(long))
	}
	if why := reasons["M2, M3, M4 and 144 more"]; !strings.Contains(why, "150 competing classes; only the first 3 may compete (limits.classes_per_answer)") {
		t.Errorf("the classes over the cap refused with %q (records %v)", why, reasons)
	}
	if why := reasons["Late"]; !strings.Contains(why, "bots_per_challenge") || !strings.Contains(why, "cap is 5") {
		t.Errorf("Late refused with %q", why)
	}
	if _, ok := reasons["M1"]; ok {
		t.Errorf("M1 (the answer's third class) was refused: %s", reasons["M1"])
	}
}

// `kothd check` gives an answer's author the same verdicts on the caps as a cycle.
func TestCheckNamesTheCaps(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	crontest.WriteSnapshot(t, filepath.Join(dir, "snap"), 177765, []string{
		"<h1>Long</h1><pre><code>class Fine(Bot):\n    def make_throw(self, scores, last_round):\n        yield False\n" +
			"n = 'L' + 'o' * 140000 + 'ng'\nglobals()[n] = type(n, (Bot,), {})\n</code></pre>",
	})
	cy := crontest.NewCycle(t, dir)
	cy.Source = scraper.Snapshot{Dir: filepath.Join(dir, "snap"), Site: "codegolf"}
	ch, _ := cy.Config.Challenge("forty")
	crontest.Patient(ch) // played beside other tests: no call may time out
	rep, err := cy.Check(context.Background(), ch, 177766)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Bots) != 2 || rep.Bots[0].Name != "Fine" || rep.Bots[0].Status != cron.WouldEnter {
		t.Fatalf("bots %+v", rep.Bots)
	}
	if b := rep.Bots[1]; b.Status != "rejected" || !strings.Contains(b.Reason, "name_max") || len(b.Name) > 200 {
		t.Errorf("long name: status %q, reason %q, name of %d bytes", b.Status, b.Reason, len(b.Name))
	}
}

// One account cannot fill the run: an author's answers enter bots up to
// limits.bots_per_author (oldest answers first), and another author's still enter.
func TestBotsPerAuthor(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	class := func(names ...string) string {
		b := "<h1>" + names[0] + "</h1><pre><code>"
		for _, n := range names {
			b += "class " + n + "(Bot):\n    def make_throw(self, scores, last_round):\n        yield False\n"
		}
		return b + "</code></pre>"
	}
	crontest.WriteSnapshot(t, filepath.Join(dir, "snap"), 177765, []string{
		class("A1", "A2"), class("A3", "A4"), class("Other"), class("A5"),
	})
	// Answers 0, 1 and 3 are one account's.
	path := filepath.Join(dir, "snap", "codegolf", "177765", "answers.1.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var page map[string]any
	if err := json.Unmarshal(raw, &page); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 1, 3} {
		page["items"].([]any)[i].(map[string]any)["owner"] = map[string]any{"user_id": 7, "display_name": "prolific", "user_type": "registered"}
	}
	raw, _ = json.Marshal(page)
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	cy := crontest.NewCycle(t, dir)
	cy.Source = scraper.Snapshot{Dir: filepath.Join(dir, "snap"), Site: "codegolf"}
	ch, _ := cy.Config.Challenge("forty")
	crontest.Patient(ch)
	ch.Baselines = false
	ch.Limits.BotsPerAuthor = 3
	rep, err := cy.Run(context.Background(), ch, cron.Options{Games: 10})
	if err != nil {
		t.Fatalf("the cycle failed: %v", err)
	}
	reasons := map[string]string{}
	for _, r := range rep.Rejected {
		reasons[r.Name] = r.Reason
	}
	if rep.Entered != 4 || len(reasons) != 2 {
		t.Fatalf("entered %d, not entered %v; want A1, A2, A3 and Other in, A4 and A5 out", rep.Entered, reasons)
	}
	for _, n := range []string{"A4", "A5"} {
		if !strings.Contains(reasons[n], "limits.bots_per_author") || !strings.Contains(reasons[n], "cap is 3") {
			t.Errorf("%s refused with %q", n, reasons[n])
		}
	}
}
