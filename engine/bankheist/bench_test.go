package bankheist

import (
	"sync/atomic"
	"testing"

	"github.com/kothd/kothd/engine"
)

// BenchmarkContest measures the Bank Heist engine alone: the author's eleven example bots
// (the baselines, played in Go) in ten tournaments of about 100 games, two at a time, through
// the descriptor as the host plays it. One op is one contest; decisions are counted as the
// host counts them (its fault sink).
func BenchmarkContest(b *testing.B) {
	bots := make([]engine.Entrant, len(Examples))
	for i, e := range Examples {
		bots[i] = engine.Entrant{Name: e.Name, Baseline: true, Seed: uint64(i)}
	}
	var decisions atomic.Int64
	games := 0
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r := engine.Run{Bots: bots, Seed: uint64(i), Games: 1000, Concurrency: 2,
			Options: &Config{GamesPerTournament: 100},
			Fault:   func(int, *engine.Fault, any) { decisions.Add(1) }}
		res, err := Descriptor.Play(b.Context(), r)
		if err != nil {
			b.Fatal(err)
		}
		games += res.Games
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(games)/sec, "games/s")
	b.ReportMetric(float64(decisions.Load())/sec, "decisions/s")
}
