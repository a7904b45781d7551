package cron

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/kothd/kothd/runner/sandbox"
)

// bankheistBwrap is the real sandbox for the Bank Heist benchmark (KOTHD_NO_BWRAP=1 skips).
func bankheistBwrap(tb testing.TB) sandbox.Sandbox {
	tb.Helper()
	if os.Getenv("KOTHD_NO_BWRAP") == "1" {
		tb.Skip("KOTHD_NO_BWRAP=1")
	}
	return testSandbox(tb)
}

// BenchmarkBankHeistSnapshot plays the snapshot's eleven bots in bwrap through the argv
// adapter (one launcher per bot) and reports games and launches per second.
func BenchmarkBankHeistSnapshot(b *testing.B) {
	sb := bankheistBwrap(b)
	env, a := adapterEnv(b, "bankheist", "games_per_tournament: 10\n")
	env.Sandbox = sb
	needLanguage(b, env, "python2")
	if refused := enterSnapshot(b, env, a, 115303); len(env.Bots) != 11 {
		b.Fatalf("%d bots entered, want 11 (refused: %v)", len(env.Bots), refused)
	}
	games, launches := 0, 0
	start := time.Now()
	for i := 0; b.Loop(); i++ {
		env.Run = env.resolve(20).withSeed(uint64(i))
		played, err := playRun(context.Background(), env, a, true)
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
