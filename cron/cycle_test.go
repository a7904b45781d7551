package cron_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/cron/crontest"
	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/publisher"
	"github.com/kothd/kothd/scraper"
)

// The cycle's bookkeeping with the fake game: a second cycle over the same answers stores
// nothing twice and plays nothing; the same seed gives the same standings; a changed
// engine option is a changed bot set and plays again; the faults the engine reports are
// counted on the board.
func TestCycleSkipsUnchanged(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cy := withFakeGame(t, crontest.NewCycle(t, t.TempDir()))
	ch, _ := cy.Config.Challenge("forty")
	seed := uint64(99)
	rep, err := cy.Run(ctx, ch, cron.Options{Seed: &seed, Games: 30})
	if err != nil {
		t.Fatal(err)
	}
	if rep.RunID == 0 || rep.Games != 30 || rep.Entered < 10 {
		t.Fatalf("report %+v", rep)
	}
	first, _ := cy.Store.Standings(ctx, rep.RunID)

	rep2, err := cy.Run(ctx, ch, cron.Options{Games: 30})
	if err != nil {
		t.Fatal(err)
	}
	if rep2.RunID != 0 || !strings.Contains(rep2.Skipped, "nothing changed") {
		t.Errorf("unchanged answers were played again: %+v", rep2)
	}
	var answers int
	cy.Store.DB().QueryRow("SELECT COUNT(*) FROM answers").Scan(&answers)
	if answers != rep.Answers {
		t.Errorf("%d answers stored after two cycles over %d", answers, rep.Answers)
	}

	rep3, err := cy.Run(ctx, ch, cron.Options{Seed: &seed, Games: 30})
	if err != nil {
		t.Fatal(err)
	}
	if third, _ := cy.Store.Standings(ctx, rep3.RunID); !reflect.DeepEqual(first, third) {
		t.Errorf("same seed, different standings:\n%+v\n%+v", first, third)
	}

	if err := yaml.Unmarshal([]byte("bonus: 5\n"), &ch.Options); err != nil {
		t.Fatal(err)
	}
	rep4, err := cy.Run(ctx, ch, cron.Options{Games: 30})
	if err != nil {
		t.Fatal(err)
	}
	if rep4.RunID == 0 {
		t.Fatalf("a changed option did not play again: %+v", rep4)
	}
	if err := yaml.Unmarshal([]byte("bonsu: 5\n"), &ch.Options); err != nil {
		t.Fatal(err)
	}
	if _, err := cy.Run(ctx, ch, cron.Options{Games: 30}); err == nil || !strings.Contains(err.Error(), "bonsu") {
		t.Errorf("a misspelt option was accepted: %v", err)
	}
}

// A bot the engine reports faults for has them counted, with the first, on the board.
func TestCycleCountsEngineFaults(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	crontest.WriteSnapshot(t, filepath.Join(dir, "snap"), 177765, []string{
		"<h1>Steady</h1><pre><code>class Steady(Bot):\n    pass\n</code></pre>",
		"<h1>FaultyBot</h1><pre><code>class FaultyBot(Bot):\n    pass\n</code></pre>",
	})
	cy := withFakeGame(t, crontest.NewCycle(t, dir))
	cy.Source = scraper.Snapshot{Dir: filepath.Join(dir, "snap"), Site: "codegolf"}
	ch, _ := cy.Config.Challenge("forty")
	ch.Baselines = false
	rep, err := cy.Run(ctx, ch, cron.Options{Games: 7})
	if err != nil {
		t.Fatal(err)
	}
	st, _ := cy.Store.Standings(ctx, rep.RunID)
	for _, s := range st {
		want := 0
		if s.Bot == "FaultyBot" {
			want = 7
		}
		if s.Errors != want || s.Faults[engine.Crash] != want {
			t.Errorf("%s: %d errors, faults %v; want %d crashes", s.Bot, s.Errors, s.Faults, want)
		}
	}
	md, _ := os.ReadFile(filepath.Join(cy.Config.OutputDir, "forty.md"))
	if !strings.Contains(string(md), "always crash") {
		t.Errorf("the board does not show the first fault:\n%s", md)
	}
}

// A run's report tells the games it played apart from those it scored: a game the engine
// leaves out of its result (Mafia's abandoned games) took its time all the same, and kothd
// bench divides by the games played.
func TestReportCountsUnscoredGames(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	crontest.WriteSnapshot(t, filepath.Join(dir, "snap"), 177765, []string{
		"<h1>Steady</h1><pre><code>class Steady(Bot):\n    pass\n</code></pre>",
	})
	cy := withFakeGame(t, crontest.NewCycle(t, dir))
	cy.Source = scraper.Snapshot{Dir: filepath.Join(dir, "snap"), Site: "codegolf"}
	ch, _ := cy.Config.Challenge("forty")
	if err := yaml.Unmarshal([]byte("unscored: 2\n"), &ch.Options); err != nil {
		t.Fatal(err)
	}
	rep, err := cy.Run(ctx, ch, cron.Options{Games: 7})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Games != 5 || rep.Played != 7 {
		t.Fatalf("report: %d games scored, %d played; want 5 and 7", rep.Games, rep.Played)
	}
}

func TestEngineNotAvailable(t *testing.T) {
	t.Parallel()
	cy := crontest.NewCycle(t, t.TempDir())
	ch := &config.Challenge{Name: "nogame", QuestionID: 1, Engine: "nogame"}
	rep, err := cy.Run(context.Background(), ch, cron.Options{})
	if err != nil || !strings.Contains(rep.Skipped, "not available") {
		t.Fatalf("rep %+v err %v", rep, err)
	}
}

// A run the daemon did not finish is played again with its seed by the next cycle, even
// though no answer changed; a run that finished is not played again.
func TestInterruptedRunReplaysItsSeed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cy := withFakeGame(t, crontest.NewCycle(t, t.TempDir()))
	ch, _ := cy.Config.Challenge("forty")
	ch.Games = 30
	cancelled, cancel := context.WithCancel(ctx)
	cy.Out = cancelAfterPlaying{cancel}
	rep, err := cy.Run(cancelled, ch, cron.Options{})
	if err == nil {
		t.Fatalf("a cancelled run did not fail: %+v", rep)
	}
	cut, _ := cy.Store.GetRun(ctx, rep.RunID)
	if cut == nil || !cut.Interrupted() {
		t.Fatalf("the cancelled run is not marked interrupted: %+v", cut)
	}
	cy.Out = io.Discard
	// The daemon has no Out: its log (the journal) says the run is played again.
	var logs bytes.Buffer
	cy.Log = slog.New(slog.NewTextHandler(&logs, nil))
	again, err := cy.Run(ctx, ch, cron.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if again.RunID == 0 || again.Seed != cut.Seed {
		t.Fatalf("interrupted run %d (seed %d) not replayed: %+v", cut.ID, cut.Seed, again)
	}
	if want := fmt.Sprintf("playing an interrupted run again with its seed\" challenge=forty run=%d", cut.ID); !strings.Contains(logs.String(), want) {
		t.Errorf("the log does not say the interrupted run is played again (%q):\n%s", want, logs.String())
	}
	if third, _ := cy.Run(ctx, ch, cron.Options{}); third.RunID != 0 {
		t.Errorf("a finished run was played again: %+v", third)
	}
}

// cancelAfterPlaying cancels the cycle as soon as it prints that a run started.
type cancelAfterPlaying struct{ cancel context.CancelFunc }

func (c cancelAfterPlaying) Write(p []byte) (int, error) {
	if strings.Contains(string(p), ": run ") {
		c.cancel()
	}
	return len(p), nil
}

// One game of a finished run can be replayed alone, the same every time; games beyond the
// run and missing runs are refused.
func TestReplay(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cy := withFakeGame(t, crontest.NewCycle(t, t.TempDir()))
	ch, _ := cy.Config.Challenge("forty")
	seed := uint64(5)
	rep, err := cy.Run(ctx, ch, cron.Options{Seed: &seed, Games: 30})
	if err != nil {
		t.Fatal(err)
	}
	crontest.ReplayTwice(t, cy, rep.RunID, 7, "forty, run 1 (seed 5), game 7", "Dummy: ")
	crontest.OutOfRange(t, cy, rep.RunID, 30)
	if err := cy.Replay(ctx, 999, 0, io.Discard); err == nil {
		t.Error("a missing run was replayed")
	}
	crontest.NoCopiesLeft(t, cy)
}

// flakySink fails its first publications, then works, keeping what it got.
type flakySink struct {
	fails int
	got   map[string][]byte
}

func (f *flakySink) Target() string { return "flaky" }
func (f *flakySink) Publish(ctx context.Context, files map[string][]byte, msg string) (string, error) {
	if f.fails > 0 {
		f.fails--
		return "", fmt.Errorf("github: 502 Bad Gateway")
	}
	f.got = files
	return "c0ffee", nil
}

// A publication that failed is made by the next cycle even though nothing changed, without
// playing again; a new broken answer shows on the board at once, still without playing.
func TestRepublish(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	good := []string{
		"<h1>A</h1><pre><code>class A(Bot):\n    def make_throw(self, scores, last_round):\n        yield False\n</code></pre>",
		"<h1>B</h1><pre><code>class B(Bot):\n    def make_throw(self, scores, last_round):\n        yield sum(self.current_throws) &lt; 10\n</code></pre>",
	}
	crontest.WriteSnapshot(t, filepath.Join(dir, "snap"), 177765, good)
	cy := withFakeGame(t, crontest.NewCycle(t, dir))
	cy.Source = scraper.Snapshot{Dir: filepath.Join(dir, "snap"), Site: "codegolf"}
	sink := &flakySink{fails: 1}
	cy.Sinks = []publisher.Sink{sink}
	ch, _ := cy.Config.Challenge("forty")
	ch.Baselines, ch.Games = false, 20
	if _, err := cy.Run(ctx, ch, cron.Options{}); err == nil || !strings.Contains(err.Error(), "502") {
		t.Fatalf("the failed publication was not reported: %v", err)
	}
	rep, err := cy.Run(ctx, ch, cron.Options{})
	if err != nil || rep.RunID != 0 {
		t.Fatalf("second cycle: %+v %v", rep, err)
	}
	if sink.got == nil {
		t.Fatal("the board that failed to publish was not published by the next cycle")
	}
	crontest.WriteSnapshot(t, filepath.Join(dir, "snap"), 177765, append(good, "<h1>Broken</h1><p>no code yet</p>"))
	if rep, err := cy.Run(ctx, ch, cron.Options{}); err != nil || rep.RunID != 0 {
		t.Fatalf("third cycle: %+v %v", rep, err)
	}
	if md := string(sink.got["forty.md"]); !strings.Contains(md, "no code block in the answer") {
		t.Errorf("the new broken answer is not on the board:\n%s", md)
	}
}

// A fetch that returns no answers at all, when answers are recorded, is refused: nothing is
// retired and the board stays.
func TestEmptyFetchKeepsData(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	crontest.WriteSnapshot(t, filepath.Join(dir, "snap"), 177765, []string{
		"<h1>A</h1><pre><code>class A(Bot):\n    def make_throw(self, scores, last_round):\n        yield False\n</code></pre>",
		"<h1>B</h1><pre><code>class B(Bot):\n    def make_throw(self, scores, last_round):\n        yield True\n</code></pre>",
	})
	cy := withFakeGame(t, crontest.NewCycle(t, dir))
	cy.Source = scraper.Snapshot{Dir: filepath.Join(dir, "snap"), Site: "codegolf"}
	ch, _ := cy.Config.Challenge("forty")
	ch.Games = 10
	if _, err := cy.Run(ctx, ch, cron.Options{}); err != nil {
		t.Fatal(err)
	}
	crontest.WriteSnapshot(t, filepath.Join(dir, "snap"), 177765, nil)
	seed := uint64(1)
	if _, err := cy.Run(ctx, ch, cron.Options{Seed: &seed}); err == nil || !strings.Contains(err.Error(), "no answers") {
		t.Fatalf("an empty fetch was accepted: %v", err)
	}
	if st, _ := cy.Store.Status(ctx, "forty"); st.Deleted != 0 || st.Answers != 2 {
		t.Errorf("answers retired by an empty fetch: %+v", st)
	}
}
