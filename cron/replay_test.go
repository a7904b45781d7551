package cron

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/scraper"
)

// snapshotWithout is the bundled snapshot of a question without the given answers, in a
// temp directory: replays can only be compared with each other when no bot draws from
// unseeded randomness, and some participants' bots do.
func snapshotWithout(t *testing.T, questionID int64, drop ...int64) scraper.Source {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join("../testdata/snapshot/codegolf", fmt.Sprint(questionID))
	dst := filepath.Join(dir, "codegolf", fmt.Sprint(questionID))
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	pages, _ := filepath.Glob(filepath.Join(src, "answers.*.json"))
	if len(pages) == 0 {
		t.Fatalf("no snapshot pages in %s", src)
	}
	dropped := 0
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var body map[string]any
		if err := json.Unmarshal(b, &body); err != nil {
			t.Fatal(err)
		}
		var kept []any
		for _, it := range body["items"].([]any) {
			if slices.Contains(drop, int64(it.(map[string]any)["answer_id"].(float64))) {
				dropped++
				continue
			}
			kept = append(kept, it)
		}
		body["items"] = kept
		out, _ := json.Marshal(body)
		if err := os.WriteFile(filepath.Join(dst, filepath.Base(p)), out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if dropped != len(drop) {
		t.Fatalf("dropped %d of the answers %v", dropped, drop)
	}
	return scraper.Snapshot{Dir: dir, Site: "codegolf"}
}

// runFor plays a cycle of one challenge with the given engine options and returns the run.
// Its bots are patient: replays are compared with the run.
func runFor(t *testing.T, cy *Cycle, challenge, options string, games int, seed uint64) int64 {
	t.Helper()
	ch, err := cy.Config.Challenge(challenge)
	if err != nil {
		t.Fatal(err)
	}
	patient(ch)
	if options != "" {
		if err := yaml.Unmarshal([]byte(options), &ch.Options); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := cy.Run(context.Background(), ch, Options{Seed: &seed, Games: games})
	if err != nil {
		t.Fatal(err)
	}
	if rep.RunID == 0 {
		t.Fatalf("no run: %+v", rep)
	}
	return rep.RunID
}

// replayTwice replays a game twice, checks the traces are identical, start with the
// reproducibility note and contain want, and returns the trace.
func replayTwice(t *testing.T, cy *Cycle, runID int64, game int, want ...string) string {
	t.Helper()
	var a, b strings.Builder
	if err := cy.Replay(context.Background(), runID, game, &a); err != nil {
		t.Fatalf("replay of game %d: %v", game, err)
	}
	if err := cy.Replay(context.Background(), runID, game, &b); err != nil {
		t.Fatalf("second replay of game %d: %v", game, err)
	}
	if a.String() != b.String() {
		t.Errorf("two replays of game %d differ:\n%s\n---\n%s", game, a.String(), b.String())
	}
	lines := strings.Split(a.String(), "\n")
	if len(lines) < 3 || !strings.Contains(lines[0], fmt.Sprintf("game %d", game)) || !strings.Contains(lines[1], "may decide differently") {
		t.Errorf("trace does not start with the header and the reproducibility note:\n%s", a.String())
	}
	for _, w := range want {
		if !strings.Contains(a.String(), w) {
			t.Errorf("trace of game %d lacks %q", game, w)
		}
	}
	if t.Failed() || testing.Verbose() {
		t.Logf("trace of game %d:\n%s", game, clip(a.String(), 6000))
	}
	return a.String()
}

// outOfRange checks that game n of a run is refused.
func outOfRange(t *testing.T, cy *Cycle, runID int64, n int) {
	t.Helper()
	if err := cy.Replay(context.Background(), runID, n, io.Discard); err == nil {
		t.Errorf("game %d, beyond the run, was replayed", n)
	}
	if err := cy.Replay(context.Background(), runID, -1, io.Discard); err == nil {
		t.Error("game -1 was replayed")
	}
}

// noCopiesLeft checks that replays removed the copies they played in.
func noCopiesLeft(t *testing.T, cy *Cycle) {
	t.Helper()
	if left, _ := os.ReadDir(filepath.Join(cy.Config.DataDir, "work")); len(left) != 0 {
		t.Errorf("play directories left behind: %v", left)
	}
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n/2] + "\n…\n" + s[len(s)-n/2:]
}

// A White Elephant run of the original contest's one game: its replay ends with the run's
// final scores. Six answers of the snapshot (MirrorBot, who is disqualified, among them)
// and the baselines: every bot is a process in the run and in each replay.
func TestReplayWhiteElephant(t *testing.T) {
	ctx := context.Background()
	cy := testCycle(t, t.TempDir())
	cy.Source = snapshotOnly(t, 169235, 169241, 169247, 169251, 169270, 169281)
	runID := runFor(t, cy, "whiteelephant", "winning_score: 20\n", 1, 3) // one contest: the run's table is its game's
	trace := replayTwice(t, cy, runID, 0,
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
	outOfRange(t, cy, runID, 1)
	noCopiesLeft(t, cy)
}

// Ruins with a pool phase (tables of four for seven bots): pool games come first in the
// numbering, then the finals, whose replay plays the pool again to find the finalists.
func TestReplayRuins(t *testing.T) {
	ctx := context.Background()
	cy := testCycle(t, t.TempDir())
	runID := runFor(t, cy, "ruins", "game_size: 4\npool_games: 2\nlead: 1000\n", 2, 7)
	run, err := cy.Store.GetRun(ctx, runID)
	if err != nil || run.Result == nil {
		t.Fatalf("run %+v: %v", run, err)
	}
	n := run.Result.Games + run.Result.Voided
	if n < 3 {
		t.Fatalf("%d games counted", n)
	}
	replayTwice(t, cy, runID, 0, "pool game 1 of ", "seat 0: ", "seat 3: ", "Turn 1:", "moved into room #", "Ranking:", "points")
	replayTwice(t, cy, runID, n-1, "final game ", "Finalists (pool score): ", "seat 3: ", "Turn 1:", "Ranking:")
	outOfRange(t, cy, runID, n)

	// The finals are the last two games: their points add up to the run's scores.
	points := map[string]int{}
	for _, game := range []int{n - 2, n - 1} {
		var b strings.Builder
		if err := cy.Replay(ctx, runID, game, &b); err != nil {
			t.Fatal(err)
		}
		_, ranking, _ := strings.Cut(b.String(), "Ranking:\n")
		for _, line := range strings.Split(strings.TrimSpace(ranking), "\n") {
			open, close := strings.Index(line, " ("), strings.Index(line, "): ")
			var p int
			fmt.Sscanf(line[strings.LastIndex(line, ": ")+2:], "%d points", &p)
			points[line[open+2:close]] += p
		}
	}
	finalists := 0
	for _, r := range run.Result.Rows {
		if r.Cells[0] == "–" {
			continue // eliminated in the pool
		}
		finalists++
		if float64(points[r.Bot]) != r.Score {
			t.Errorf("%s: %d points in the replayed finals, %v in the run", r.Bot, points[r.Bot], r.Score)
		}
	}
	if finalists != 4 {
		t.Errorf("%d finalists in the run's table", finalists)
	}
	noCopiesLeft(t, cy)
}

// Bank Heist over two tournaments of two games: a game's replay plays the games of its
// tournament before it silently, and the last games of the tournaments end with the
// credits the run summed.
func TestReplayBankHeist(t *testing.T) {
	cy := testCycle(t, t.TempDir())
	needLanguage(t, &PlayEnv{Config: cy.Config}, "python2")
	// MonisAddiction, OC'sRandomTpyos and RaysFive01K draw from unseeded random modules.
	cy.Source = snapshotWithout(t, 115303, 115398, 115680, 115790)
	runID := runFor(t, cy, "bankheist", "games_per_tournament: 2\n", 4, 11) // two tournaments of 2 games
	last := replayTwice(t, cy, runID, 3, "game 1 of tournament 1 (2 games); games 0 to 0", "Standings before game 1:",
		"#####GAME 1: ", "Round 1:", "Lurker bet ", "Round 2", "decided to ", "Results:")
	var b strings.Builder // once: replayTwice showed that replays repeat
	if err := cy.Replay(context.Background(), runID, 1, &b); err != nil {
		t.Fatal(err)
	}
	first := b.String()
	if !strings.Contains(first, "game 1 of tournament 0") || !strings.Contains(first, "#####GAME 1: ") {
		t.Errorf("game 1 is not tournament 0's last:\n%s", clip(first, 2000))
	}
	outOfRange(t, cy, runID, 4)

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
	noCopiesLeft(t, cy)
}

func TestReplayMafia(t *testing.T) {
	cy := testCycle(t, t.TempDir())
	// The question's Randy draws from Python's unseeded random module.
	cy.Source = snapshotWithout(t, 151341, 151356)
	ch, _ := cy.Config.Challenge("mafia")
	ch.Concurrency = 4 // bots of an action round at once, as the run had them
	// The lineup must not depend on the machine's load: a python3 bot that misses a 2 s
	// limit in validation on a busy test machine would leave the game to other players.
	ch.Limits.CallTimeout = config.Duration(30 * time.Second)
	// Seed 10: a mafia victory at the dawn of day 1, about 360 launches (chosen with the
	// Go stand-ins of engine/mafia/standin_test.go).
	run := runFor(t, cy, "mafia", "", 1, 10)
	replayTwice(t, cy, run, 0, "player Sheriff: Sheriff", "player Randy1: the filler Randy", "Mafia: ", "Cop: ", "Doctor: ",
		"Day 0 begins.", "Day 1 begins.", " votes to kill ", "Outcome: ")
	outOfRange(t, cy, run, 1)
	noCopiesLeft(t, cy)
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
