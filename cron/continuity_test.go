package cron_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/cron/crontest"
	"github.com/kothd/kothd/publisher"
	"github.com/kothd/kothd/scraper"
	"github.com/kothd/kothd/scraper/fakeapi"
)

// Two real forty runs (bots under bwrap) through the fake Stack Exchange API, keeping
// track of who is who. Run 1 is the first: the page says so and calls nothing new; an
// answer whose class has a built-in bot's name hears that; the Revision column is the
// answer's revision number on the site. Then answer 1001 (GoTo20Bot) is deleted, which
// lets answer 1002's GoTo20Bot (refused in run 1: the name was taken) enter: it is a new
// bot, not 1001's moved (on the chart too); and a new answer that does not enter is "not
// entered", not new.
func TestBoardContinuityByAnswer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const q = 177765
	api := fakeapi.New()
	defer api.Close()
	bot := func(id, created, edited int64, name, class, rule string) map[string]any {
		body := fmt.Sprintf("<h1>%s</h1><pre><code>class %s(Bot):\n    def make_throw(self, scores, last_round):\n        while %s:\n            yield True\n        yield False\n</code></pre>", name, class, rule)
		return map[string]any{"answer_id": id, "question_id": q, "creation_date": created, "last_edit_date": edited, "last_activity_date": max(created, edited), "score": 1, "body": body,
			"owner": map[string]any{"user_id": id, "display_name": fmt.Sprint("user", id), "user_type": "registered"}}
	}
	// 1001 posted and edited twice (revision 3); the others as posted.
	api.Put(q, bot(1001, 1000, 0, "GoTo20Bot", "GoTo20Bot", "sum(self.current_throws) &lt; 18"))
	api.Put(q, bot(1001, 1000, 1010, "GoTo20Bot", "GoTo20Bot", "sum(self.current_throws) &lt; 19"))
	api.Put(q, bot(1001, 1000, 1020, "GoTo20Bot", "GoTo20Bot", "sum(self.current_throws) &lt; 20"))
	api.Put(q, bot(1002, 2000, 0, "GoTo20Bot", "GoTo20Bot", "sum(self.current_throws) &lt; 21"),
		bot(1003, 3000, 0, "Steady", "Steady", "sum(self.current_throws) &lt; 15"),
		bot(1004, 4000, 0, "GoToTenBot", "GoToTenBot", "sum(self.current_throws) &lt; 12"),
		map[string]any{"answer_id": 1005, "question_id": q, "creation_date": 5000, "score": 1, "body": "<p>No code here.</p>",
			"owner": map[string]any{"user_id": 5, "display_name": "talker", "user_type": "registered"}})
	dir := t.TempDir()
	cy := crontest.NewCycle(t, dir)
	cy.Source = scraper.New(api.BaseURL(), "codegolf", "")
	ch, _ := cy.Config.Challenge("forty")
	crontest.Patient(ch)
	ch.Baselines = true
	board := func(rep *cron.Report) (*publisher.Board, string) {
		t.Helper()
		raw, err := os.ReadFile(filepath.Join(cy.Config.OutputDir, "forty", "runs", fmt.Sprint(rep.RunID)+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var b publisher.Board
		if err := json.Unmarshal(raw, &b); err != nil {
			t.Fatal(err)
		}
		md, _ := os.ReadFile(filepath.Join(cy.Config.OutputDir, "forty.md"))
		return &b, string(md)
	}
	row := func(b *publisher.Board, answer int64, name string) *publisher.Row {
		for i, r := range b.Rows {
			if r.AnswerID == answer && r.Bot == name {
				return &b.Rows[i]
			}
		}
		return nil
	}

	rep, err := cy.Run(ctx, ch, cron.Options{Games: 60})
	if err != nil {
		t.Fatal(err)
	}
	b1, md1 := board(rep)
	if b1.Since == nil || !b1.Since.FirstRun || len(b1.Changes) != 0 {
		t.Errorf("first run: since %+v, changes %+v", b1.Since, b1.Changes)
	}
	if !strings.Contains(md1, "First run of this challenge") || strings.Contains(md1, "- new") {
		t.Errorf("first run's page does not say so, or calls answers new:\n%s", md1)
	}
	for _, r := range b1.Rows {
		if r.Move != nil {
			t.Errorf("first run: %s has a move %+v", r.Bot, r.Move)
		}
	}
	g1, steady := row(b1, 1001, "GoTo20Bot"), row(b1, 1003, "Steady")
	if g1 == nil || steady == nil || row(b1, 1002, "GoTo20Bot") != nil {
		t.Fatalf("run 1 rows %+v", b1.Rows)
	}
	if g1.Revision != 3 || steady.Revision != 1 || g1.Versions != 1 {
		t.Errorf("revisions: GoTo20Bot %d (versions %d), want the site's 3; Steady %d, want 1", g1.Revision, g1.Versions, steady.Revision)
	}
	reasons := map[int64]string{}
	for _, r := range b1.NotEntered {
		reasons[r.AnswerID] = r.Reason
	}
	if r := reasons[1004]; !strings.Contains(r, "GoToTenBot has the name of a built-in baseline bot") {
		t.Errorf("a class named like a baseline: reason %q", r)
	}
	if reasons[1002] == "" || reasons[1005] == "" {
		t.Errorf("not entered %+v", b1.NotEntered)
	}

	// A new answer that does not enter changes no bot: the board is published again, and
	// lists it as not entered, not as new.
	api.Put(q, map[string]any{"answer_id": 1007, "question_id": q, "creation_date": 7000, "score": 1, "body": "<p>Words only.</p>",
		"owner": map[string]any{"user_id": 7, "display_name": "talker3", "user_type": "registered"}})
	if rep, err = cy.Run(ctx, ch, cron.Options{Games: 60}); err != nil || rep.RunID != 0 {
		t.Fatalf("republish: %+v, %v", rep, err)
	}
	var again publisher.Board
	raw, _ := os.ReadFile(filepath.Join(cy.Config.OutputDir, "forty.json"))
	if err := json.Unmarshal(raw, &again); err != nil {
		t.Fatal(err)
	}
	if len(again.Changes) != 1 || again.Changes[0].Kind != "not entered" || again.Changes[0].AnswerID != 1007 {
		t.Errorf("republished board's changes %+v, want answer 1007 not entered", again.Changes)
	}

	api.Delete(q, 1001)
	api.Put(q, map[string]any{"answer_id": 1006, "question_id": q, "creation_date": 6000, "score": 1, "body": "<p>Still no code.</p>",
		"owner": map[string]any{"user_id": 6, "display_name": "talker2", "user_type": "registered"}})
	rep, err = cy.Run(ctx, ch, cron.Options{Games: 60})
	if err != nil {
		t.Fatal(err)
	}
	b2, md2 := board(rep)
	g2 := row(b2, 1002, "GoTo20Bot")
	if g2 == nil || g2.Move == nil || g2.Move.Kind != "new" {
		t.Fatalf("answer 1002's GoTo20Bot: %+v, want a new bot", g2)
	}
	if g2.Revision != 1 {
		t.Errorf("answer 1002's revision %d, want 1", g2.Revision)
	}
	kinds := map[string]bool{}
	for _, c := range b2.Changes {
		kinds[fmt.Sprintf("%s %d %s", c.Kind, c.AnswerID, c.Bot)] = true
		if c.Kind == "up" || c.Kind == "down" {
			t.Errorf("a move reported though the field changed: %+v", c)
		}
		if c.Kind == "new" && c.AnswerID != 1002 {
			t.Errorf("change %+v: only answer 1002's bot is newly entered", c)
		}
	}
	for _, want := range []string{"withdrawn 1001 ", "new 1002 GoTo20Bot", "not entered 1006 "} {
		if !kinds[want] {
			t.Errorf("changes %v lack %q", kinds, want)
		}
	}
	for _, r := range b2.Rows {
		if r.Move != nil && r.AnswerID != 1002 {
			t.Errorf("%s (answer %d) moved %+v though the field changed under it", r.Bot, r.AnswerID, r.Move)
		}
	}
	if s := b2.Since; s == nil || s.FirstRun || s.PreviousRun != b1.Run.ID || s.Entered != 1 || s.Left != 1 {
		t.Errorf("since %+v", b2.Since)
	}
	// The chart's history follows bots too: run 1's GoTo20Bot (answer 1001) is not the
	// line of answer 1002's.
	if h := b2.History; len(h) != 2 {
		t.Errorf("history %+v", b2.History)
	} else {
		_, joined := h[0].Scores["GoTo20Bot"]
		_, old := h[0].Scores["GoTo20Bot (answer 1001)"]
		_, now := h[1].Scores["GoTo20Bot"]
		if joined || !old || !now {
			t.Errorf("history %+v: run 1's GoTo20Bot must be keyed by its answer", h)
		}
	}
	if strings.Contains(md2, "First run") || !strings.Contains(md2, "The field changed since") || strings.Contains(md2, "from 1 to") {
		t.Errorf("second run's page:\n%s", md2)
	}
}
