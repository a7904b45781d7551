package cron_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/cron/crontest"
	"github.com/kothd/kothd/scraper"
)

func TestValidationRejectsBotThatNeverAnswers(t *testing.T) {
	dir := t.TempDir()
	crontest.WriteSnapshot(t, filepath.Join(dir, "snap"), 177765, []string{
		"<h1>A</h1><pre><code>class A(Bot):\n    def make_throw(self, scores, last_round):\n        yield False\n</code></pre>",
		"<h1>B</h1><pre><code>class B(Bot):\n    def make_throw(self, scores, last_round):\n        yield sum(self.current_throws) &lt; 10\n</code></pre>",
		"<h1>Sleeper</h1><pre><code>import time\nclass Sleeper(Bot):\n    def __init__(self, *a):\n        time.sleep(1000)\n</code></pre>",
	})
	cy := crontest.NewCycle(t, dir)
	cy.Source = scraper.Snapshot{Dir: filepath.Join(dir, "snap"), Site: "codegolf"}
	ch, _ := cy.Config.Challenge("forty")
	ch.Baselines = false
	ch.Limits.CallTimeout = config.Duration(200 * time.Millisecond)
	rep, err := cy.Run(context.Background(), ch, cron.Options{Games: 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rejected) != 1 || rep.Rejected[0].Name != "Sleeper" || rep.Rejected[0].Status != "failed validation" {
		t.Fatalf("rejected = %+v", rep.Rejected)
	}
	if rep.Entered != 2 || rep.Games != 20 {
		t.Fatalf("entered %d, games %d", rep.Entered, rep.Games)
	}
	if st, _ := cy.Store.BotStatus(context.Background(), "forty", 177766, "A"); st != "ok" {
		t.Errorf("status of A = %q", st)
	}
}
