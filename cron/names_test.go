package cron_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/cron/crontest"
	"github.com/kothd/kothd/scraper"
)

// Class names (pyclass challenges, from the harness's listing) are compared as people see
// them, against earlier answers' classes and the built-in bots alike.
func TestLookAlikeClassNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// The extractor's class pattern is ASCII; a block that starts with an ASCII class (a
	// decoy that enters) carries the look-alike past it to the harness's listing.
	decoys := 0
	class := func(name string) string {
		decoys++
		code := "    def make_throw(self, scores, last_round):\n        yield False\n"
		decoy := fmt.Sprint("Decoy", decoys)
		return "<h1>" + name + "</h1><pre><code>class " + decoy + "(Bot):\n" + code + "class " + name + "(Bot):\n" + code + "</code></pre>"
	}
	crontest.WriteSnapshot(t, filepath.Join(dir, "snap"), 177765, []string{
		"<pre><code>class GoTo20Bot(Bot):\n    def make_throw(self, scores, last_round):\n        yield False\n</code></pre>",
		class("GoTo20B\u043et"), // Cyrillic о
		class("G\u039fTo20Bot"), // Greek capital Ο
		class("gotO20bot"),      // case
		class("GoTo21Bot"),
		class("G\u043eToTenBot"), // a built-in bot's name, Cyrillic о
		"<pre><code>class HoldOn(Bot):\n    def make_throw(self, scores, last_round):\n        yield False\n</code></pre>",
	})
	cy := crontest.NewCycle(t, dir)
	cy.Source = scraper.Snapshot{Dir: filepath.Join(dir, "snap"), Site: "codegolf"}
	ch, _ := cy.Config.Challenge("forty")
	crontest.Patient(ch)
	ch.Exclude = []string{"Hold0n"} // the host's exclusion: its look-alike is excluded too
	rep, err := cy.Run(context.Background(), ch, cron.Options{Games: 2})
	if err != nil {
		t.Fatal(err)
	}
	rejected := map[string]string{}
	for _, r := range rep.Rejected {
		rejected[r.Name] = r.Reason
	}
	for _, n := range []string{"GoTo20B\u043et", "G\u039fTo20Bot", "gotO20bot"} {
		for _, want := range []string{"duplicate bot name", `looks like "GoTo20Bot"`, "answer 177766 by userA"} {
			if !strings.Contains(rejected[n], want) {
				t.Errorf("%+q: reason %q lacks %q (all: %v)", n, rejected[n], want, rejected)
			}
		}
	}
	if r := rejected["G\u043eToTenBot"]; !strings.Contains(r, `looks like "GoToTenBot", which a built-in bot entered first`) {
		t.Errorf("built-in look-alike: %q", r)
	}
	if r := rejected["HoldOn"]; r != "excluded by the host" {
		t.Errorf("look-alike of an excluded name: %q", r)
	}
	if _, ok := rejected["GoTo20Bot"]; ok || len(rep.Rejected) != 5 {
		t.Errorf("rejected %v, want exactly the five look-alikes", rejected)
	}
}
