package cron

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"kothd/config"
	"kothd/runner"
	"kothd/scraper"
)

// bankheistBwrap is the real sandbox for the launcher comparisons (KOTHD_NO_BWRAP=1 skips).
func bankheistBwrap(tb testing.TB) runner.Sandbox {
	tb.Helper()
	if os.Getenv("KOTHD_NO_BWRAP") == "1" {
		tb.Skip("KOTHD_NO_BWRAP=1")
	}
	sb, err := runner.NewSandbox("bwrap", slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		tb.Fatalf("sandbox: %v (set KOTHD_NO_BWRAP=1 to skip)", err)
	}
	return sb
}

// bankheistSnapshotEnv builds and validates the bundled Bank Heist answers in sb and
// returns a play environment holding the eleven that enter.
func bankheistSnapshotEnv(tb testing.TB, sb runner.Sandbox, options string) *PlayEnv {
	tb.Helper()
	if _, err := os.Stat("/root/.pyenv/versions/2.7.18/bin/python2.7"); err != nil {
		tb.Skip("the configured Python 2 is not installed")
	}
	ctx := context.Background()
	cfg, err := config.Load("../config.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	cfg.DataDir = tb.TempDir()
	ch, err := cfg.Challenge("bankheist")
	if err != nil {
		tb.Fatal(err)
	}
	if err := yaml.Unmarshal([]byte(options), &ch.Options); err != nil {
		tb.Fatal(err)
	}
	env := &PlayEnv{Challenge: ch, Config: cfg, Sandbox: sb}
	answers, err := scraper.Snapshot{Dir: "../testdata/snapshot", Site: "codegolf"}.Answers(ctx, 115303)
	if err != nil {
		tb.Fatal(err)
	}
	a := bankheistAdapter{}
	for _, s := range scraper.ExtractAll(answers, scraper.RulesFromConfig(env.Config, env.Challenge)) {
		if s.Reject != "" {
			continue
		}
		dir := filepath.Join(env.Config.DataDir, "bots", s.Title)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			tb.Fatal(err)
		}
		for _, f := range s.Files {
			if err := os.WriteFile(filepath.Join(dir, f.Name), []byte(f.Content), 0o644); err != nil {
				tb.Fatal(err)
			}
		}
		entries, err := a.Prepare(ctx, env, Submission{AnswerID: s.AnswerID, Author: s.Author, Title: s.Title, Language: s.Language, Dir: dir})
		if err == nil {
			err = a.Validate(ctx, env, entries[0])
		}
		if err == nil {
			env.Bots = append(env.Bots, entries...)
		}
	}
	if len(env.Bots) != 11 {
		tb.Fatalf("%d bots entered, want 11", len(env.Bots))
	}
	return env
}

// randomBankHeistBots are the snapshot's answers that use Python's unseeded random: their
// results differ from run to run however they are launched.
var randomBankHeistBots = []string{"MonisAddiction", "OC'sRandomTpyos", "RaysFive01K"}

// The snapshot's deterministic bots in bwrap, through one launcher per bot and through a
// sandbox per decision: the same standings, and no fault either way.
func TestBankHeistLauncherSameAsSandboxPerLaunch(t *testing.T) {
	sb := bankheistBwrap(t)
	ctx := context.Background()
	var results []*Played
	for _, opts := range []string{"games_per_tournament: 3\n", "games_per_tournament: 3\nsandbox_per_launch: true\n"} {
		env := bankheistSnapshotEnv(t, sb, opts)
		env.Bots = slices.DeleteFunc(env.Bots, func(e Entry) bool { return slices.Contains(randomBankHeistBots, e.Name) })
		if len(env.Bots) != 8 {
			t.Fatalf("%d deterministic bots, want 8", len(env.Bots))
		}
		env.Seed, env.Games = 115303, 6
		played, err := bankheistAdapter{}.Play(ctx, env)
		if err != nil {
			t.Fatal(err)
		}
		for i, st := range played.Stats {
			if st.Faults() != 0 {
				t.Errorf("%s (%s): %d faults, first %+v", env.Bots[i].Name, opts, st.Faults(), st.First())
			}
		}
		results = append(results, played)
	}
	if !reflect.DeepEqual(results[0].Result, results[1].Result) {
		t.Fatalf("the launcher and a sandbox per launch disagree:\n%+v\n%+v", results[0].Result.Rows, results[1].Result.Rows)
	}
}

// benchBankHeist plays the snapshot's eleven bots in bwrap and reports games per second.
func benchBankHeist(b *testing.B, options string) {
	sb := bankheistBwrap(b)
	env := bankheistSnapshotEnv(b, sb, "games_per_tournament: 10\nworkers: 2\n"+options)
	games, launches := 0, 0
	start := time.Now()
	for i := 0; b.Loop(); i++ {
		env.Seed, env.Games = uint64(i), 20
		played, err := bankheistAdapter{}.Play(context.Background(), env)
		if err != nil {
			b.Fatal(err)
		}
		games += played.Result.Games
		for _, st := range played.Stats {
			for _, n := range st.Counts() {
				launches += n
			}
		}
	}
	sec := time.Since(start).Seconds()
	b.ReportMetric(float64(games)/sec, "games/s")
	b.ReportMetric(float64(launches)/sec, "launches/s")
}

func BenchmarkBankHeistSnapshotLauncher(b *testing.B) { benchBankHeist(b, "") }

func BenchmarkBankHeistSnapshotSandboxPerLaunch(b *testing.B) {
	benchBankHeist(b, "sandbox_per_launch: true\n")
}
