package cron

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/scraper"
)

// writeSnapshot writes answers (bodies, oldest first) as a one-page snapshot of question
// qid in dir, and returns it as a source.
func writeSnapshot(t *testing.T, dir string, qid int64, bodies []string) scraper.Source {
	t.Helper()
	var items []map[string]any
	for i, b := range bodies {
		items = append(items, map[string]any{
			"answer_id": qid + 1 + int64(i), "question_id": qid, "creation_date": 1549000000 + i, "last_activity_date": 1549000000 + i,
			"score": 1, "body": b, "owner": map[string]any{"user_id": 10 + i, "display_name": "user" + string(rune('A'+i)), "user_type": "registered"},
		})
	}
	raw, _ := json.Marshal(map[string]any{"items": items, "has_more": false, "quota_max": 10000, "quota_remaining": 9000})
	p := filepath.Join(dir, "codegolf", strconv.FormatInt(qid, 10))
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p, "answers.1.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return scraper.Snapshot{Dir: dir, Site: "codegolf"}
}

func TestValidationRejectsBotThatNeverAnswers(t *testing.T) {
	dir := t.TempDir()
	writeSnapshot(t, filepath.Join(dir, "snap"), 177765, []string{
		"<h1>A</h1><pre><code>class A(Bot):\n    def make_throw(self, scores, last_round):\n        yield False\n</code></pre>",
		"<h1>B</h1><pre><code>class B(Bot):\n    def make_throw(self, scores, last_round):\n        yield sum(self.current_throws) &lt; 10\n</code></pre>",
		"<h1>Sleeper</h1><pre><code>import time\nclass Sleeper(Bot):\n    def __init__(self, *a):\n        time.sleep(1000)\n</code></pre>",
	})
	cy := testCycle(t, dir)
	cy.Source = scraper.Snapshot{Dir: filepath.Join(dir, "snap"), Site: "codegolf"}
	ch, _ := cy.Config.Challenge("forty")
	ch.Baselines = false
	ch.Limits.CallTimeout = config.Duration(200 * time.Millisecond)
	rep, err := cy.Run(context.Background(), ch, Options{Games: 20})
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
