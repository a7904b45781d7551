package cron_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/cron/crontest"
)

// A host who changes what a run plays (here games) and reloads gets a run at the next
// cycle, although the question shows no activity (docs/config.md says so); a cycle after
// that, with nothing changed, plays nothing. The probe alone skipped the challenge until an
// answer changed (seen in the VM suite: a reload to 200,000 games never started a run).
func TestChangedPlaySettingsPlayWithoutActivity(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cy := withFakeGame(t, crontest.NewCycle(t, t.TempDir()))
	var out bytes.Buffer
	cy.Out = &out
	run := func() *cron.Report {
		t.Helper()
		out.Reset()
		reps, err := cy.RunSome(ctx, []string{"forty"}, cron.Options{})
		if err != nil || len(reps) != 1 {
			t.Fatalf("%v, %d reports\n%s", err, len(reps), &out)
		}
		return reps[0]
	}
	if rep := run(); rep.RunID == 0 {
		t.Fatalf("the first cycle did not play: %+v\n%s", rep, &out)
	}
	if rep := run(); rep.RunID != 0 || !strings.Contains(rep.Skipped, "no activity") {
		t.Fatalf("a quiet cycle played: %+v\n%s", rep, &out)
	}
	ch, _ := cy.Config.Challenge("forty")
	ch.Games = 40
	rep := run()
	if rep.RunID == 0 || rep.Games != 40 {
		t.Fatalf("games changed to 40, but the cycle did not play them: %+v\n%s", rep, &out)
	}
	if !strings.Contains(out.String(), "the config changed what a run plays") {
		t.Errorf("the cycle does not say why it played:\n%s", &out)
	}
	if rep := run(); rep.RunID != 0 || !strings.Contains(rep.Skipped, "no activity") {
		t.Fatalf("a quiet cycle after the change played: %+v\n%s", rep, &out)
	}
	// A change that is not to what a run plays (the title) plays nothing.
	ch.Title = "another title"
	if rep := run(); rep.RunID != 0 {
		t.Fatalf("a changed title played a run: %+v\n%s", rep, &out)
	}
}
