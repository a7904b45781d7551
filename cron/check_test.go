package cron_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/cron/crontest"
	"github.com/kothd/kothd/scraper"
)

// check takes single answers of the bundled snapshot through extraction, the real harness
// in the real sandbox and validation, and says what their authors need; it leaves the
// host's data directory and store as they were.
func TestCheckAnswers(t *testing.T) {
	t.Parallel()
	cy := crontest.NewCycle(t, t.TempDir())
	ctx := context.Background()
	ch, err := cy.Config.Challenge("forty")
	if err != nil {
		t.Fatal(err)
	}
	crontest.Patient(ch) // played beside other tests: no call may time out
	// The last cycle entered GoTo20Bot from answer 177771.
	if _, err := cy.Store.RecordAnswers(ctx, "forty", ch.QuestionID, []scraper.Submission{{AnswerID: 177771, Author: "Amelia Thorncroft", Title: "GoTo20Bot"}}); err != nil {
		t.Fatal(err)
	}
	if err := cy.Store.SetBotStatus(ctx, "forty", 177771, "GoTo20Bot", "ok", ""); err != nil {
		t.Fatal(err)
	}
	before, err := cy.Store.Events(ctx, "forty", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		answer            int64
		reject, bot, stat string
		reason            string
	}{
		{answer: 177771, bot: "GoTo20Bot", stat: cron.WouldEnter},
		{answer: 178040, reject: "no code block in the answer"},
		{answer: 178066, reject: `SyntaxError: bot.py line 11: Missing parentheses in call to 'print'`},
		{answer: 178093, bot: "GoTo20Bot", stat: "rejected", reason: `duplicate bot name "GoTo20Bot": answer 177771 by Amelia Thorncroft entered it first`},
	} {
		rep, err := cy.Check(ctx, ch, tc.answer)
		if err != nil {
			t.Fatalf("check %d: %v", tc.answer, err)
		}
		if tc.reject != "" {
			if !strings.Contains(rep.Reject, tc.reject) || len(rep.Bots) != 0 {
				t.Errorf("answer %d: reject %q, bots %+v; want a refusal with %q", tc.answer, rep.Reject, rep.Bots, tc.reject)
			}
			continue
		}
		if rep.Reject != "" || len(rep.Bots) != 1 || rep.Bots[0].Name != tc.bot || rep.Bots[0].Status != tc.stat || !strings.Contains(rep.Bots[0].Reason, tc.reason) {
			t.Errorf("answer %d: %+v; want %s %s %q", tc.answer, rep, tc.bot, tc.stat, tc.reason)
		}
		if rep.Language != "python3" || len(rep.Files) != 1 || !strings.HasPrefix(rep.Files[0], "bot.py (") {
			t.Errorf("answer %d: language %q files %v", tc.answer, rep.Language, rep.Files)
		}
	}
	if _, err := cy.Check(ctx, ch, 1); err == nil || !strings.Contains(err.Error(), "answer 1 is not among the") {
		t.Errorf("unknown answer: %v", err)
	}
	// Nothing the host keeps changed: no bot directory, no scratch, no new event.
	for _, sub := range []string{"bots", "work", "builtin"} {
		if _, err := os.Stat(filepath.Join(cy.Config.DataDir, sub)); !os.IsNotExist(err) {
			t.Errorf("check wrote %s in the data directory (%v)", sub, err)
		}
	}
	after, err := cy.Store.Events(ctx, "forty", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Errorf("check recorded events: %d → %d", len(before), len(after))
	}
	if run, _ := cy.Store.LastAttempt(ctx, "forty"); run != nil {
		t.Errorf("check started a run: %+v", run)
	}
}
