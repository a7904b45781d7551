package cron

import (
	"context"
	"os"
	"reflect"
	"slices"
	"testing"
	"time"

	"kothd/runner"
)

// bankheistBwrap is the real sandbox for the launcher comparisons (KOTHD_NO_BWRAP=1 skips).
func bankheistBwrap(tb testing.TB) runner.Sandbox {
	tb.Helper()
	if os.Getenv("KOTHD_NO_BWRAP") == "1" {
		tb.Skip("KOTHD_NO_BWRAP=1")
	}
	return testSandbox(tb)
}

// bankheistSnapshotEnv builds and validates the bundled Bank Heist answers in sb and
// returns a play environment holding the eleven that enter.
func bankheistSnapshotEnv(tb testing.TB, sb runner.Sandbox, options string) *PlayEnv {
	tb.Helper()
	env := adapterEnv(tb, "bankheist", options)
	env.Sandbox = sb
	needLanguage(tb, env, "python2")
	if refused := enterSnapshot(tb, env, bankheistAdapter{}, 115303); len(env.Bots) != 11 {
		tb.Fatalf("%d bots entered, want 11 (refused: %v)", len(env.Bots), refused)
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
