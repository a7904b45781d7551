package referee_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/cron/crontest"
	"github.com/kothd/kothd/scraper"
)

// rpsQuestion is the question of the referee's test snapshot (testdata/snapshot): four
// answers, each a Python bot of the stdio protocol, one of which never answers by the
// rules.
const rpsQuestion = 900001

// rpsChallenge is a challenge hosted by the referee in refDir (relative to the
// repository's config: the example, examples/rps), with the given options after the
// referee's.
func rpsChallenge(t *testing.T, cy *cron.Cycle, refDir, options string) *config.Challenge {
	t.Helper()
	cy.Source = scraper.Snapshot{Dir: filepath.Join(crontest.Root(t), "engine", "referee", "testdata", "snapshot"), Site: "codegolf"}
	bh, _ := cy.Config.Challenge("bankheist")
	cy.Config.Challenges = []config.Challenge{{
		Name: "rps", Title: "Rock, paper, scissors", QuestionID: rpsQuestion, Engine: "referee",
		Extract: config.Extract{Mode: "first-block", Language: "python3", MaxBytes: 65536},
		Limits:  bh.Limits,
	}}
	ch := &cy.Config.Challenges[0]
	crontest.Patient(ch) // its replays are compared
	opts := "referee: {dir: " + refDir + ", language: python3, file: referee.py}\n" + options
	if err := yaml.Unmarshal([]byte(opts), &ch.Options); err != nil {
		t.Fatal(err)
	}
	return ch
}

// The example referee through the whole cycle with real processes: the answers are fetched
// from the snapshot, extracted, built and validated through the referee (a bot that never
// answers R, P or S is not entered, with the referee's pattern in the reason), a round robin
// is played with the referee and the bots each in their sandbox, recorded, published, and a
// game replays with the same trace twice.
func TestRefereeCycle(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cy := crontest.NewCycle(t, dir)
	crontest.NeedLanguage(t, cy.Config, "python3")
	ch := rpsChallenge(t, cy, "engine/referee/examples/rps", "shape: round-robin\ngames_per_pairing: 2\nsettings: {rounds: 9}\n")
	seed := uint64(7)
	rep, err := cy.Run(ctx, ch, cron.Options{Seed: &seed})
	if err != nil {
		t.Fatal(err)
	}
	if rep.RunID == 0 || rep.Games != 12 || rep.Entered != 3 || len(rep.Rejected) != 1 || rep.Rejected[0].Name != "Shouter" {
		t.Fatalf("report %+v (rejected %+v)", rep, rep.Rejected)
	}
	if !strings.Contains(rep.Rejected[0].Reason, "does not match [RPS]") {
		t.Errorf("Shouter's rejection does not say why: %s", rep.Rejected[0].Reason)
	}
	md, err := os.ReadFile(filepath.Join(cy.Config.OutputDir, "rps.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| Score |", "| Ties |", "| Copycat |", "| Rocky |", "| Cycler |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("leaderboard lacks %q:\n%s", want, md)
		}
	}
	// Copycat answers whatever beats its opponent's last move: it beats Rocky every round
	// after the first, so it ranks above Rocky.
	if strings.Index(string(md), "| Copycat |") > strings.Index(string(md), "| Rocky |") {
		t.Errorf("Copycat ranks below Rocky:\n%s", md)
	}
	crontest.ReplayTwice(t, cy, rep.RunID, 5, "seat 0 (", "← move 1 -", "result: scores")
	crontest.OutOfRange(t, cy, rep.RunID, 12)
	crontest.NoCopiesLeft(t, cy)
}

// Editing the referee is a change of what a run plays: the next cycle plays again, as it
// does when an answer changes; a cycle with nothing changed plays nothing.
func TestRefereeEditPlaysAgain(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cy := crontest.NewCycle(t, dir)
	crontest.NeedLanguage(t, cy.Config, "python3")
	ref := filepath.Join(dir, "referee")
	if err := os.MkdirAll(ref, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("examples", "rps", "referee.py"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ref, "referee.py"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	ch := rpsChallenge(t, cy, ref, "shape: round-robin\ngames_per_pairing: 1\nsettings: {rounds: 3}\n")
	for i, want := range []bool{true, false, true} {
		if i == 2 {
			if err := os.WriteFile(filepath.Join(ref, "referee.py"), append(src, "# rules edited\n"...), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		rep, err := cy.Run(ctx, ch, cron.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if played := rep.RunID != 0; played != want {
			t.Errorf("cycle %d: played %v, want %v (%+v)", i, played, want, rep)
		}
	}
}
