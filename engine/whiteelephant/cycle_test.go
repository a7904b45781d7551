package whiteelephant_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/cron/crontest"
	"github.com/kothd/kothd/publisher"
)

// The bundled White Elephant snapshot through the whole cycle with real bot processes:
// broken answers are reported, the rest play one game (to 60 points here, to keep the test
// short).
func TestWhiteElephantCycle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cy := crontest.NewCycle(t, t.TempDir())
	ch, err := cy.Config.Challenge("whiteelephant")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal([]byte("winning_score: 60\n"), &ch.Options); err != nil {
		t.Fatal(err)
	}
	ch.Games = 1 // one contest, as the original played it (the config plays several)
	seed := uint64(8)
	rep, err := cy.Run(ctx, ch, cron.Options{Seed: &seed})
	if err != nil {
		t.Fatal(err)
	}
	if rep.RunID == 0 || rep.Games != 1 || rep.Entered != 10 {
		t.Fatalf("report %+v", rep)
	}
	rejected := map[string]string{}
	for _, r := range rep.Rejected {
		rejected[r.Name] = r.Reason
	}
	for name, want := range map[string]string{
		"BitterBot":                         "SyntaxError",
		"The steal limit is never enforced": "no code block",
		"ThresholdBot":                      `duplicate bot name "ThresholdBot"`,
	} {
		if !strings.Contains(rejected[name], want) {
			t.Errorf("%s rejected with %q, want %q (all: %v)", name, rejected[name], want, rejected)
		}
	}
	md, err := os.ReadFile(filepath.Join(cy.Config.OutputDir, "whiteelephant.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| Score | Rounds played | Disqualified | Games | Faults |", "is the winner!",
		// Participants' text is markdown-escaped on the page (it renders as written).
		publisher.Text("MirrorBot has been disqualified. Reason: ValueError: max() arg is an empty sequence"),
		"[ValueBot](https://codegolf.stackexchange.com/a/", "[OddTodd](https://codegolf.stackexchange.com/a/", ")<br>by todd_k |", "| GreedyBot<br>*baseline* |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("leaderboard lacks %q", want)
		}
	}
	if t.Failed() || testing.Verbose() {
		t.Logf("leaderboard:\n%s", md)
	}
}

// A White Elephant run of the original contest's one game: its replay ends with the run's
// final scores. Six answers of the snapshot (MirrorBot, who is disqualified, among them)
// and the baselines: every bot is a process in the run and in each replay.
func TestReplayWhiteElephant(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cy := crontest.NewCycle(t, t.TempDir())
	cy.Source = crontest.SnapshotOnly(t, 169235, 169241, 169247, 169251, 169270, 169281)
	runID := crontest.RunFor(t, cy, "whiteelephant", "winning_score: 20\n", 1, 3) // one contest: the run's table is its game's
	trace := crontest.ReplayTwice(t, cy, runID, 0,
		"[!!!] A new round begins with this turn order:", " (Controlled by ", "opens a present worth",
		"is the winner!", "Final scores after ", "MirrorBot has been disqualified")
	if !strings.Contains(trace, " steals from ") {
		t.Error("no steal in the whole game")
	}
	run, err := cy.Store.GetRun(ctx, runID)
	if err != nil || run.Result == nil {
		t.Fatalf("run %+v: %v", run, err)
	}
	for i, r := range run.Result.Rows {
		if want := fmt.Sprintf("%2d. %-20s%7.3f", i+1, r.Bot, r.Score); !strings.Contains(trace, want+"\n") && !strings.Contains(trace, want+" (disqualified") {
			t.Errorf("the replay's scores differ from the run's: no %q", want)
		}
	}
	crontest.OutOfRange(t, cy, runID, 1)
	crontest.NoCopiesLeft(t, cy)
}
