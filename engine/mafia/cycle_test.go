package mafia_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/cron/crontest"
	"github.com/kothd/kothd/engine"
)

// A Mafia run of one game with the snapshot's real bots, through the whole cycle: its
// replay tells the game day by day, the same twice, in copies of the bots' directories.
func TestReplayMafia(t *testing.T) {
	t.Parallel()
	cy := crontest.NewCycle(t, t.TempDir())
	// The question's Randy draws from Python's unseeded random module.
	cy.Source = crontest.SnapshotWithout(t, 151341, 151356)
	ch, _ := cy.Config.Challenge("mafia")
	ch.Concurrency = 4 // bots of an action round at once, as the run had them
	// The lineup must not depend on the machine's load: a python3 bot that misses a 2 s
	// limit in validation on a busy test machine would leave the game to other players.
	ch.Limits.CallTimeout = config.Duration(30 * time.Second)
	// Seed 10: a mafia victory at the dawn of day 1, about 360 launches (chosen with the
	// Go stand-ins of standin_test.go).
	run := crontest.RunFor(t, cy, "mafia", "", 1, 10)
	crontest.ReplayTwice(t, cy, run, 0, "player Sheriff: Sheriff", "player Randy1: the filler Randy", "Mafia: ", "Cop: ", "Doctor: ",
		"Day 0 begins.", "Day 1 begins.", " votes to kill ", "Outcome: ")
	crontest.OutOfRange(t, cy, run, 1)
	crontest.NoCopiesLeft(t, cy)
	bots, err := cy.Store.RunBots(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bots {
		if _, err := os.Stat(filepath.Join(b.Dir, "sheriff.json")); err == nil {
			t.Errorf("a replay wrote into %s's directory", b.Name)
		}
	}
}

// The bundled Mafia snapshot through the whole cycle and the dirfiles adapter: bots in
// Python 2 (the question's Randy, through the `python` shim), Bash, Python 3 with a helper
// file, and C (built in preparation) are validated; the broken answers are refused with a
// reason; the rest play a game as real processes, in copies of their directories.
func TestMafiaSnapshot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cy := crontest.NewCycle(t, t.TempDir())
	crontest.NeedLanguage(t, cy.Config, "python2")
	ch, _ := cy.Config.Challenge("mafia")
	ch.Baselines = false
	crontest.Patient(ch) // no faults expected
	// Seed 13 deals roles that end the game in about three days (the question's Randy
	// plays with its own unseeded randomness, so the length varies a little).
	seed := uint64(13)
	rep, err := cy.Run(ctx, ch, cron.Options{Seed: &seed, Games: 1})
	if err != nil {
		t.Fatal(err)
	}
	refused := map[int64]string{}
	for _, r := range rep.Rejected {
		refused[r.AnswerID] = r.Reason
	}
	for id, want := range map[int64]string{
		151677: "exit status 127", // Mastermind: run starts a file the answer never posted
		151734: "output limit",    // Megaphone: a megabyte of votes
		152015: "no code block",   // Coming soon
		151610: "",                // Parrot writes nonsense, which is ignored, not refused
	} {
		got, ok := refused[id]
		switch {
		case want == "":
			if ok {
				t.Errorf("answer %d refused: %s", id, got)
			}
		case !strings.Contains(got, want):
			t.Errorf("answer %d: %q, want it refused with %q", id, got, want)
		}
	}
	if strings.Contains(refused[151677], "exit status 127") && !strings.Contains(refused[151677], "mastermind.py") {
		t.Errorf("Mastermind's refusal lacks the shell's message: %q", refused[151677])
	}
	bots, err := cy.Store.RunBots(ctx, rep.RunID)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range bots {
		names = append(names, b.Name)
	}
	if got := strings.Join(names, ","); got != "Randy,CopTrust,Sheriff,Blabbermouth,Parrot" {
		t.Fatalf("bots entered: %s; refused: %v", got, refused)
	}

	run, err := cy.Store.GetRun(ctx, rep.RunID)
	if err != nil || run.Result == nil {
		t.Fatalf("run %+v: %v", run, err)
	}
	res := run.Result
	if rep.Games != 1 || res.Games+res.Voided != 1 && !strings.Contains(strings.Join(res.Summary, " "), "abandoned") {
		t.Fatalf("played %d of %d games: %+v", res.Games, rep.Games, res)
	}
	st, err := cy.Store.Standings(ctx, rep.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 5 || len(st) != 5 || res.Voided != 0 {
		t.Fatalf("%d rows, %d standings, %d voided", len(res.Rows), len(st), res.Voided)
	}
	for _, s := range st {
		faults := 0
		for o, n := range s.Faults {
			if o != engine.OK {
				faults += n
			}
		}
		if s.Faults[engine.OK] == 0 || faults != 0 || s.Errors != 0 {
			t.Errorf("%s: %v, first fault %s", s.Bot, s.Faults, s.FirstFault)
		}
	}
	for _, r := range res.Rows {
		t.Logf("%-13s %v", r.Bot, r.Cells)
	}
	t.Logf("%q", res.Summary)
	// The run's copies are gone; the prepared directories are untouched.
	crontest.NoCopiesLeft(t, cy)
	for _, b := range bots {
		if _, err := os.Stat(filepath.Join(b.Dir, "sheriff.json")); err == nil {
			t.Errorf("the game wrote into %s's prepared directory instead of a copy", b.Name)
		}
	}
}
