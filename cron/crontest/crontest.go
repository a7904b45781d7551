// Package crontest is what a game's real-process tests need to play it through the whole
// cycle: a cycle over the repository's config and bundled snapshot in a temp directory,
// with the real store and the real bwrap sandbox; snapshots cut down to a few answers or
// written from scratch; and the checks every replay test makes.
//
// A game's cycle tests live in its folder (engine/<game>/cycle_test.go, an external test
// package, so it may import cron though cron imports every game); the cycle's own logic is
// tested in cron on the Go-only fake game. Only tests import this package.
package crontest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/publisher"
	"github.com/kothd/kothd/runner/sandbox"
	"github.com/kothd/kothd/scraper"
	"github.com/kothd/kothd/store"
)

// Root is the repository's root (the directory of go.mod above the test's directory): the
// tests of any package find config.yaml and testdata/ there.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = up
	}
}

// Bundled is the snapshot of the API's answers bundled with the repository.
func Bundled(t testing.TB) scraper.Snapshot {
	return scraper.Snapshot{Dir: filepath.Join(Root(t), "testdata", "snapshot"), Site: "codegolf"}
}

// Config is the repository's config with its data and output directories in dir.
func Config(t testing.TB, dir string) *config.Config {
	t.Helper()
	cfg, err := config.Load(filepath.Join(Root(t), "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.DataDir = filepath.Join(dir, "data")
	cfg.OutputDir = filepath.Join(dir, "out")
	return cfg
}

// NewCycle is a cycle over the bundled snapshot with the repository's config, writing into
// dir (its store, bots and boards), bots in the real sandbox.
func NewCycle(t testing.TB, dir string) *cron.Cycle {
	t.Helper()
	cfg := Config(t, dir)
	st, err := store.Open(context.Background(), filepath.Join(cfg.DataDir, "kothd.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &cron.Cycle{
		Config: cfg, Store: st, Source: Bundled(t),
		Sandbox: Sandbox(t), Sinks: []publisher.Sink{publisher.Dir{Path: cfg.OutputDir}},
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Out: io.Discard,
	}
}

// Sandbox is the real bwrap sandbox: the tests run bots exactly as a host does.
// KOTHD_NO_BWRAP=1 opts out explicitly on a machine without user namespaces.
func Sandbox(t testing.TB) sandbox.Sandbox {
	t.Helper()
	if os.Getenv("KOTHD_NO_BWRAP") == "1" {
		return sandbox.Unsandboxed{}
	}
	sb, err := sandbox.NewSandbox("bwrap", slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatalf("sandbox: %v (set KOTHD_NO_BWRAP=1 to run these tests unsandboxed)", err)
	}
	return sb
}

// Patient gives a challenge's bots a call timeout and a start-up allowance no busy machine
// reaches. A decision that times out gets the rules' default and changes the game from
// there, and a start-up that times out fails the bot's validation: tests that compare two
// plays of a seed (a run and its replay, two runs), count faults or entered bots would fail
// whenever the machine running them is loaded (a 40,000-class answer took over the default
// 20 s to start at load 10). The run's budgets are lifted to an hour for the same reason.
func Patient(ch *config.Challenge) {
	ch.Limits.CallTimeout = config.Duration(time.Minute)
	ch.Limits.StartTimeout = config.Duration(2 * time.Minute)
	// The run's budgets too: they bound wall time, which a busy test machine stretches (the
	// Ruins test bots, twelve classes of one answer, reached answer_wall at load 20).
	for _, b := range []*config.Duration{&ch.Limits.RunBudget, &ch.Limits.AnswerBudget, &ch.Limits.AnswerWall, &ch.Limits.TotalBudget} {
		*b = max(*b, config.Duration(time.Hour))
	}
}

// NeedLanguage skips a test when the interpreter the config names for a language is not
// installed on this machine (the snapshot's answers in it could not run).
func NeedLanguage(t testing.TB, cfg *config.Config, lang string) {
	t.Helper()
	l, ok := cfg.Languages[lang]
	if !ok || len(l.Run) == 0 {
		t.Fatalf("no language %q in the config", lang)
	}
	if _, err := os.Stat(l.Run[0]); err != nil {
		t.Skipf("%s (%s) is not installed here", lang, l.Run[0])
	}
}

// WriteSnapshot writes answers (bodies, oldest first) as a one-page snapshot of question
// qid in dir, and returns it as a source. Answer i is answer qid+1+i by "user" + 'A'+i.
func WriteSnapshot(t testing.TB, dir string, qid int64, bodies []string) scraper.Source {
	t.Helper()
	var items []map[string]any
	for i, b := range bodies {
		items = append(items, map[string]any{
			"answer_id": qid + 1 + int64(i), "question_id": qid, "creation_date": 1549000000 + i, "last_activity_date": 1549000000 + i,
			"score": 1, "body": b, "owner": map[string]any{"user_id": 10 + i, "display_name": "user" + string(rune('A'+i)), "user_type": "registered"},
		})
	}
	raw, _ := json.Marshal(map[string]any{"items": items, "has_more": false, "quota_max": 10000, "quota_remaining": 9000})
	p := filepath.Join(dir, "codegolf", strconv.FormatInt(qid, 10))
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p, "answers.1.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return scraper.Snapshot{Dir: dir, Site: "codegolf"}
}

// SnapshotOnly is the bundled snapshot of a question with only the given answers: every
// bot process costs, and a test of real bots needs only a few.
func SnapshotOnly(t testing.TB, questionID int64, keep ...int64) scraper.Source {
	t.Helper()
	all, err := Bundled(t).Answers(context.Background(), questionID)
	if err != nil {
		t.Fatal(err)
	}
	var drop []int64
	for _, a := range all {
		if !slices.Contains(keep, a.AnswerID) {
			drop = append(drop, a.AnswerID)
		}
	}
	if len(all)-len(drop) != len(keep) {
		t.Fatalf("the snapshot of question %d lacks some of the answers %v", questionID, keep)
	}
	return SnapshotWithout(t, questionID, drop...)
}

// SnapshotWithout is the bundled snapshot of a question without the given answers, in a
// temp directory: replays can only be compared with each other when no bot draws from
// unseeded randomness, and some participants' bots do.
func SnapshotWithout(t testing.TB, questionID int64, drop ...int64) scraper.Source {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(Bundled(t).Dir, "codegolf", fmt.Sprint(questionID))
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

// RunFor plays a cycle of one challenge with the given engine options (YAML) and returns
// the run. Its bots are patient: replays are compared with the run.
func RunFor(t testing.TB, cy *cron.Cycle, challenge, options string, games int, seed uint64) int64 {
	t.Helper()
	ch, err := cy.Config.Challenge(challenge)
	if err != nil {
		t.Fatal(err)
	}
	Patient(ch)
	if options != "" {
		if err := yaml.Unmarshal([]byte(options), &ch.Options); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := cy.Run(context.Background(), ch, cron.Options{Seed: &seed, Games: games})
	if err != nil {
		t.Fatal(err)
	}
	if rep.RunID == 0 {
		t.Fatalf("no run: %+v", rep)
	}
	return rep.RunID
}

// ReplayTwice replays a game twice, checks the traces are identical, start with the
// reproducibility note and contain want, and returns the trace.
func ReplayTwice(t testing.TB, cy *cron.Cycle, runID int64, game int, want ...string) string {
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
		t.Logf("trace of game %d:\n%s", game, Clip(a.String(), 6000))
	}
	return a.String()
}

// OutOfRange checks that game n of a run, and game -1, are refused.
func OutOfRange(t testing.TB, cy *cron.Cycle, runID int64, n int) {
	t.Helper()
	if err := cy.Replay(context.Background(), runID, n, io.Discard); err == nil {
		t.Errorf("game %d, beyond the run, was replayed", n)
	}
	if err := cy.Replay(context.Background(), runID, -1, io.Discard); err == nil {
		t.Error("game -1 was replayed")
	}
}

// NoCopiesLeft checks that runs and replays removed the copies they played in.
func NoCopiesLeft(t testing.TB, cy *cron.Cycle) {
	t.Helper()
	if left, _ := os.ReadDir(filepath.Join(cy.Config.DataDir, "work")); len(left) != 0 {
		t.Errorf("play directories left behind: %v", left)
	}
}

// Clip is s cut to its first and last n/2 bytes, for logs.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n/2] + "\n…\n" + s[len(s)-n/2:]
}
