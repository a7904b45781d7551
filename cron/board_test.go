package cron_test

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/cron/crontest"
	"github.com/kothd/kothd/publisher"
	"github.com/kothd/kothd/scraper"
)

// The same bots played again (`once --force`) publish a board whose rank changes are only
// those the statistics stand behind, with the run history, the chart and the archive. The
// fake game: this is the cycle's and the publisher's bookkeeping, not the bots'.
func TestBoardAcrossRuns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	bot := func(name, rule string) string {
		return fmt.Sprintf("<h1>%s</h1><pre><code>class %s(Bot):\n    def make_throw(self, scores, last_round):\n        while %s:\n            yield True\n        yield False\n</code></pre>", name, name, rule)
	}
	crontest.WriteSnapshot(t, filepath.Join(dir, "snap"), 177765, []string{
		bot("Ten", "sum(self.current_throws) &lt; 10"),
		bot("Eleven", "sum(self.current_throws) &lt; 11"),
		bot("Twenty", "sum(self.current_throws) &lt; 20"),
		bot("Once", "len(self.current_throws) &lt; 1"),
	})
	cy := withFakeGame(t, crontest.NewCycle(t, dir))
	cy.Source = scraper.Snapshot{Dir: filepath.Join(dir, "snap"), Site: "codegolf"}
	ch, _ := cy.Config.Challenge("forty")
	ch.Baselines, ch.Games = false, 400
	var runs []int64
	for i := range 3 {
		rep, err := cy.Run(ctx, ch, cron.Options{Force: true})
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		runs = append(runs, rep.RunID)
	}
	out := cy.Config.OutputDir
	boards := map[int64]*publisher.Board{}
	for _, id := range runs {
		raw, err := os.ReadFile(filepath.Join(out, "forty", "runs", fmt.Sprint(id)+".json"))
		if err != nil {
			t.Fatalf("archive of run %d: %v", id, err)
		}
		var b publisher.Board
		if err := json.Unmarshal(raw, &b); err != nil {
			t.Fatal(err)
		}
		boards[id] = &b
	}
	for k := 1; k < len(runs); k++ {
		prev, b := boards[runs[k-1]], boards[runs[k]]
		group := map[string][2]int{}
		for _, r := range prev.Rows {
			group[r.Bot] = r.RankRange
		}
		for _, r := range b.Rows {
			if r.Move == nil {
				continue
			}
			g := group[r.Bot]
			if r.Move.Why != "significant" || !(g[1] < r.RankRange[0] || r.RankRange[1] < g[0]) && !intervalsApart(prevRow(prev, r.Bot).Interval, r.Interval) {
				t.Errorf("run %d: the same bots, yet %s is reported moving %s (%s), rank ranges %v then %v", b.Run.ID, r.Bot, r.Move.Kind, r.Move.Why, g, r.RankRange)
			}
		}
		for _, c := range b.Changes {
			if c.Kind != "up" && c.Kind != "down" {
				t.Errorf("run %d: the same bots, yet the changes list %+v", b.Run.ID, c)
			}
		}
	}
	last := boards[runs[2]]
	if len(last.History) != 3 || last.History[0].Run != runs[0] || last.History[2].Run != runs[2] {
		t.Errorf("history %+v, want runs %v", last.History, runs)
	}
	for _, r := range last.Rows {
		if r.Interval == nil || r.Interval.Low > r.Score || r.Interval.High < r.Score || r.Link == "" || r.ContentHash == "" || r.Versions != 1 || r.Revision != 0 { // a snapshot knows no revision numbers
			t.Errorf("row lacks its interval, link or identity: %+v", r)
		}
	}
	md, _ := os.ReadFile(filepath.Join(out, "forty.md"))
	if !strings.Contains(string(md), "](forty.svg)") {
		t.Error("the page does not embed its chart")
	}
	svg, err := os.ReadFile(filepath.Join(out, "forty.svg"))
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(strings.NewReader(string(svg)))
	bots := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("chart is not XML: %v", err)
		}
		if e, ok := tok.(xml.StartElement); ok && e.Name.Local == "g" {
			for _, a := range e.Attr {
				if a.Name.Local == "class" && a.Value == "bot" {
					bots++
				}
			}
		}
	}
	if bots != len(last.Rows) {
		t.Errorf("the run's chart draws %d bots, want all %d", bots, len(last.Rows))
	}
	if _, err := os.Stat(filepath.Join(out, "forty.history.svg")); err != nil {
		t.Errorf("no history chart: %v", err)
	}
}

func prevRow(b *publisher.Board, bot string) publisher.Row {
	for _, r := range b.Rows {
		if r.Bot == bot {
			return r
		}
	}
	return publisher.Row{}
}

func intervalsApart(a, b *publisher.Interval) bool {
	return a != nil && b != nil && (a.High < b.Low || b.High < a.Low)
}
