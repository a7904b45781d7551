package ruins

import (
	"testing"
)

// BenchmarkTournament measures a whole Ruins tournament with the author's twelve test bots
// played in Go (pool phase of 24 games, then finals to a 50-point lead or 60 games), their
// arguments going through JSON as they do to the harness: the engine's cost per game and
// per call, without processes. One op is one tournament.
func BenchmarkTournament(b *testing.B) {
	bots, fns := testBots()
	games, calls := 0, 0
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		ex := newGoExchanger(fns)
		res, err := Play(b.Context(), ex, bots, Options{SeedString: SeedString(uint64(i)), MaxFinals: 60})
		if err != nil {
			b.Fatal(err)
		}
		games += res.Games
		calls += ex.calls
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(games)/sec, "games/s")
	b.ReportMetric(float64(calls)/sec, "calls/s")
	b.ReportMetric(float64(calls)/float64(max(games, 1)), "calls/game")
}
