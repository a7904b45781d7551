package bankheist_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/cron/crontest"
	"github.com/kothd/kothd/engine"
)

// The bundled Bank Heist snapshot through the whole cycle and the argv adapter: answers in
// Python 3, Python 2, C (one of them two files) and Bash are built and validated, the
// broken ones are refused with a reason, and the rest play one tournament of two games as
// real processes (every decision is a process: a game is a few hundred launches).
func TestBankHeistSnapshot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cy := crontest.NewCycle(t, t.TempDir())
	crontest.NeedLanguage(t, cy.Config, "python2")
	ch, _ := cy.Config.Challenge("bankheist")
	ch.Baselines = false
	crontest.Patient(ch) // no faults expected
	if err := yaml.Unmarshal([]byte("games_per_tournament: 2\n"), &ch.Options); err != nil {
		t.Fatal(err)
	}
	seed := uint64(115303)
	rep, err := cy.Run(ctx, ch, cron.Options{Seed: &seed, Games: 2}) // one tournament of 2 games
	if err != nil {
		t.Fatal(err)
	}
	refused := map[int64]string{}
	for _, r := range rep.Rejected {
		refused[r.AnswerID] = r.Reason
	}
	for id, want := range map[int64]string{
		115853: "compile error",               // Overflower, C
		115901: "no code block",               // Pacifist, Python 3
		116187: "unknown language: Brainfuck", // BrainBank
	} {
		if !strings.Contains(refused[id], want) {
			t.Errorf("answer %d: %q, want it refused with %q", id, refused[id], want)
		}
	}
	// Chatterbox (116020) bets words, which the rules cannot read, but answers its other
	// decisions: a bot that faults on some decisions, not all, enters (cron/validate.go).
	if _, ok := refused[116020]; ok {
		t.Errorf("Chatterbox refused: %s", refused[116020])
	}
	if rep.Entered != 12 || len(refused) != 3 {
		t.Fatalf("%d bots entered, refused: %v", rep.Entered, refused)
	}
	run, err := cy.Store.GetRun(ctx, rep.RunID)
	if err != nil || run.Result == nil {
		t.Fatalf("run %+v: %v", run, err)
	}
	st, err := cy.Store.Standings(ctx, rep.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if res := run.Result; rep.Games != 2 || res.Games != 2 || len(res.Rows) != 12 || len(st) != 12 {
		t.Fatalf("played %d of %d games, %d rows, %d standings", res.Games, rep.Games, len(res.Rows), len(st))
	}
	for _, s := range st {
		t.Logf("%-16s %8.0f faults %d", s.Bot, s.Score, s.Errors)
		faults := 0
		for o, n := range s.Faults {
			if o != engine.OK {
				faults += n
			}
		}
		if s.Bot == "Chatterbox" {
			// Its bet in each game's round 1 and nothing else.
			if s.Faults[engine.BadOutput] != 2 || faults != 2 || !strings.Contains(s.FirstFault, "I bet everything I have!") {
				t.Errorf("Chatterbox: outcomes %v, first fault %s", s.Faults, s.FirstFault)
			}
			continue
		}
		if s.Errors != 0 || faults != 0 {
			t.Errorf("%s: %d errors, outcomes %v (first fault %s)", s.Bot, s.Errors, s.Faults, s.FirstFault)
		}
		if s.Bot == "Lurker" && s.Score != 240*(2+1) {
			t.Errorf("Lurker: %v credits, want %d", s.Score, 240*(2+1))
		}
	}
	crontest.NoCopiesLeft(t, cy)
}

// Bank Heist over two tournaments of two games, real bot processes through the whole
// cycle: a game's replay plays the games of its tournament before it silently, and the
// last games of the tournaments end with the credits the run summed.
func TestReplayBankHeist(t *testing.T) {
	t.Parallel()
	cy := crontest.NewCycle(t, t.TempDir())
	crontest.NeedLanguage(t, cy.Config, "python2")
	// MonisAddiction, OC'sRandomTpyos and RaysFive01K draw from unseeded random modules.
	cy.Source = crontest.SnapshotWithout(t, 115303, 115398, 115680, 115790)
	runID := crontest.RunFor(t, cy, "bankheist", "games_per_tournament: 2\n", 4, 11) // two tournaments of 2 games
	last := crontest.ReplayTwice(t, cy, runID, 3, "game 1 of tournament 1 (2 games); games 0 to 0", "Standings before game 1:",
		"#####GAME 1: ", "Round 1:", "Lurker bet ", "Round 2", "decided to ", "Results:")
	var b strings.Builder // once: ReplayTwice showed that replays repeat
	if err := cy.Replay(context.Background(), runID, 1, &b); err != nil {
		t.Fatal(err)
	}
	first := b.String()
	if !strings.Contains(first, "game 1 of tournament 0") || !strings.Contains(first, "#####GAME 1: ") {
		t.Errorf("game 1 is not tournament 0's last:\n%s", crontest.Clip(first, 2000))
	}
	crontest.OutOfRange(t, cy, runID, 4)

	sum := map[string]int64{}
	for game, trace := range map[int]string{1: first, 3: last} {
		_, results, ok := strings.Cut(trace, "Results:\n")
		if !ok {
			t.Fatalf("no results in game %d:\n%s", game, trace)
		}
		for _, line := range strings.Split(strings.TrimSpace(results), "\n") {
			var rank int
			var rest string
			if _, err := fmt.Sscanf(line, "%d. %s", &rank, &rest); err != nil {
				t.Fatalf("results line %q: %v", line, err)
			}
			i := strings.LastIndex(line, ": ")
			var credits int64
			fmt.Sscan(line[i+2:], &credits)
			sum[line[strings.Index(line, " ")+1:i]] += credits
		}
	}
	run, err := cy.Store.GetRun(context.Background(), runID)
	if err != nil || run.Result == nil {
		t.Fatalf("run %+v: %v", run, err)
	}
	for _, r := range run.Result.Rows {
		if float64(sum[r.Bot]) != r.Score {
			t.Errorf("%s: the replays end with %d credits in all, the run with %v", r.Bot, sum[r.Bot], r.Score)
		}
	}
	crontest.NoCopiesLeft(t, cy)
}
