package cron

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/kothd/kothd/publisher"
)

// The bundled White Elephant snapshot through the whole cycle: broken answers are reported,
// the rest play one game (to 60 points here, to keep the test short).
func TestWhiteElephantCycle(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cy := testCycle(t, dir)
	ch, err := cy.Config.Challenge("whiteelephant")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal([]byte("winning_score: 60\n"), &ch.Options); err != nil {
		t.Fatal(err)
	}
	ch.Games = 1 // one contest, as the original played it (the config plays several)
	seed := uint64(8)
	rep, err := cy.Run(ctx, ch, Options{Seed: &seed})
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
	for _, want := range []string{"| Score | Rounds played | Disqualified | 95 % interval | Games | Faults |", "is the winner\\!",
		// Participants' text is markdown-escaped on the page (it renders as written).
		publisher.Text("MirrorBot has been disqualified. Reason: ValueError: max() arg is an empty sequence"),
		"[ValueBot](https://codegolf.stackexchange.com/a/", "[OddTodd](https://codegolf.stackexchange.com/a/", `) | todd\_k |`, "| GreedyBot *(baseline)* |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("leaderboard lacks %q", want)
		}
	}
	if t.Failed() || testing.Verbose() {
		t.Logf("leaderboard:\n%s", md)
	}
}
