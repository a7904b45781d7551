package mafia

import (
	"testing"

	"github.com/kothd/kothd/engine"
)

// BenchmarkGames measures the Mafia engine alone: six players, two Go bots that never say
// anything (a file-protocol bot that writes no to_server) and four of the engine's own
// Randy fillers, no processes. One op is one game; runs/s counts the Go bots' runs, the
// decisions a real game would launch processes for.
func BenchmarkGames(b *testing.B) {
	entrants := []engine.Entrant{{Name: "QuietA"}, {Name: "QuietB"}}
	bots := newFake(len(entrants), silent)
	played := 0
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		res, err := Play(b.Context(), bots, entrants, uint64(i), Options{Games: 1, Parallel: 2}, nil)
		if err != nil {
			b.Fatal(err)
		}
		played += res.Games
	}
	if played == 0 {
		b.Fatal("no game played")
	}
	runs := 0
	for _, n := range bots.runs {
		runs += n
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(played)/sec, "games/s")
	b.ReportMetric(float64(runs)/sec, "runs/s")
	b.ReportMetric(float64(runs)/float64(played), "runs/game")
}
