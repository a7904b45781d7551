package whiteelephant

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/runner/protocol/pyclass"
	"github.com/kothd/kothd/runner/sandbox"
)

// counting wraps an Exchanger and counts round trips (ticks) and decisions.
type counting struct {
	ex           engine.Exchanger
	ticks, calls atomic.Int64
}

func (c *counting) Exchange(ctx context.Context, calls []engine.Call) []engine.Reply {
	c.ticks.Add(1)
	c.calls.Add(int64(len(calls)))
	return c.ex.Exchange(ctx, calls)
}

// BenchmarkPlay plays whole games to 500 (the original contest, about 900 rounds) with
// the three built-ins in real harness processes.
func BenchmarkPlay(b *testing.B) {
	bots, ents := realBots(b, "", nil)
	pool := pyclass.NewPyPool(sandbox.Unsandboxed{}, pyConfig(), bots)
	defer pool.Close()
	ex := &counting{ex: pool}
	rounds := 0
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		res, err := Play(b.Context(), ex, ents, Options{Seed: uint64(i)})
		if err != nil || res.Games != 1 {
			b.Fatalf("%v %+v", err, res)
		}
		r, _ := strconv.Atoi(res.Rows[0].Cells[1])
		rounds += r
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(b.N)/sec, "games/s")
	b.ReportMetric(float64(rounds)/sec, "rounds/s")
	b.ReportMetric(float64(ex.calls.Load())/sec, "calls/s")
	b.ReportMetric(float64(ex.ticks.Load())/sec, "ticks/s")
}

// BenchmarkPlayEngine measures the engine alone: Go-scripted bots, no processes.
func BenchmarkPlayEngine(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		f := newFake(greedy, nice, wobbly(), greedy, nice, wobbly(), greedy, nice, wobbly(), greedy, nice)
		if _, err := Play(b.Context(), f, entrants("G1", "N1", "W1", "G2", "N2", "W2", "G3", "N3", "W3", "G4", "N4"), Options{Seed: uint64(i)}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "games/s")
}

// BenchmarkPlayConcurrent plays 64 games to 100 at once (engine.Lockstep, 32 per group) with
// six classes in real harness processes: the built-ins and three of the test answer's. With
// many games in flight a tick carries several calls per process, as a run with more games
// than the configured contests would.
func BenchmarkPlayConcurrent(b *testing.B) {
	bots, ents := realBots(b, testAnswer, []string{"Picky", "Bolder", "Listy"})
	pool := pyclass.NewPyPool(sandbox.Unsandboxed{}, pyConfig(), bots)
	defer pool.Close()
	ex := &counting{ex: pool}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := Play(b.Context(), ex, ents, Options{Seed: uint64(i), Games: 64, Concurrency: 64, WinningScore: 100}); err != nil {
			b.Fatal(err)
		}
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(b.N*64)/sec, "games/s")
	b.ReportMetric(float64(ex.calls.Load())/float64(ex.ticks.Load()), "calls/tick")
	b.ReportMetric(float64(ex.calls.Load())/sec, "calls/s")
}
