package forty_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/engine/forty"
)

// goBots plays the forty game's bots in Go, answering by method alone so that the engine's
// own cost is what is measured: bot b throws again until its turn has 1 + b%5 throws (the
// "start" call follows the automatic throw, each "next" one more throw).
type goBots struct {
	mu    sync.Mutex
	turn  map[[2]int]int // (bot, game) → throws asked for this turn
	calls int
}

var (
	replyTrue  = json.RawMessage("true")
	replyFalse = json.RawMessage("false")
)

func (g *goBots) Exchange(_ context.Context, calls []engine.Call) []engine.Reply {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.calls += len(calls)
	out := make([]engine.Reply, len(calls))
	for i, c := range calls {
		k := [2]int{c.Bot, c.Game}
		switch c.Method {
		case "start":
			g.turn[k] = 1
		case "next":
			g.turn[k]++
		case "end":
			delete(g.turn, k)
			out[i].Result = replyTrue
			continue
		default: // "new"
			out[i].Result = replyTrue
			continue
		}
		if g.turn[k] < 1+c.Bot%5 {
			out[i].Result = replyTrue
		} else {
			out[i].Result = replyFalse
		}
	}
	return out
}

// BenchmarkEngine measures the forty engine alone (tournament, lockstep scheduler, tally)
// with 48 Go bots, no processes: a 48-bot field like the real one. One op is one game.
// cpu-µs/call is the process's CPU time (user+sys, every thread: the garbage collector's
// too) per call, the Go bots' own share included: on a shared machine wall time says little.
func BenchmarkEngine(b *testing.B) {
	bots := make([]engine.Entrant, 48)
	for i := range bots {
		bots[i] = engine.Entrant{Name: fmt.Sprintf("Go%02d", i), Seed: uint64(i)}
	}
	g := &goBots{turn: map[[2]int]int{}}
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	t, err := forty.Run(b.Context(), g, bots, forty.Options{Games: b.N, Seed: 1, Concurrency: 1024})
	if err != nil {
		b.Fatal(err)
	}
	if t.Games != b.N {
		b.Fatalf("%d games played of %d", t.Games, b.N)
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(b.N)/sec, "games/s")
	b.ReportMetric(float64(g.calls)/sec, "calls/s")
	b.ReportMetric(float64(g.calls)/float64(b.N), "calls/game")
	b.ReportMetric(float64(cpuTime()-cpu)/float64(time.Microsecond)/float64(g.calls), "cpu-µs/call")
}

// cpuTime is the CPU time (user+sys) the process has used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// packBots answers like goBots without a map (bot b throws until its turn has 1 + b%5
// throws: the throws' count is in the call's packed arguments), and packs every call's
// arguments as the pyclass wire does (engine.IntsAppender), so that what is measured is
// the daemon's side of a decision: the rules' step function, the lockstep and the reading
// of each call's arguments, at the games in flight of a real run.
type packBots struct {
	calls int
	ints  []int32
	out   []engine.Reply
}

func (p *packBots) Exchange(_ context.Context, calls []engine.Call) []engine.Reply {
	p.calls += len(calls)
	p.out = append(p.out[:0], make([]engine.Reply, len(calls))...)
	for i, c := range calls {
		if i+4 < len(calls) { // as the pyclass wire encodes them
			if a, ok := calls[i+4].Args.(engine.Prefetcher); ok {
				a.Prefetch()
			}
		}
		p.ints = p.ints[:0]
		if a, ok := c.Args.(engine.IntsAppender); ok {
			p.ints = a.AppendInts(p.ints)
		}
		throws := 0
		switch c.Method {
		case "start":
			throws = int(p.ints[1])
		case "next":
			throws = len(p.ints)
		}
		if throws < 1+c.Bot%5 && c.Method != "end" && c.Method != "new" {
			p.out[i].Result = replyTrue
		} else if c.Method == "end" || c.Method == "new" {
			p.out[i].Result = replyTrue
		} else {
			p.out[i].Result = replyFalse
		}
	}
	return p.out
}

// BenchmarkSteps measures the forty engine's side of a decision at the descriptor's games
// in flight (32768: the slots' state is far out of the caches, as in a real run) with
// packBots. One op is one game; cpu-ns/call is the process's CPU per call.
func BenchmarkSteps(b *testing.B) {
	bots := make([]engine.Entrant, 48)
	for i := range bots {
		bots[i] = engine.Entrant{Name: fmt.Sprintf("Go%02d", i), Seed: uint64(i)}
	}
	p := &packBots{}
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	if _, err := forty.Run(b.Context(), p, bots, forty.Options{Games: b.N, Seed: 1, Concurrency: forty.Descriptor.Concurrency}); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(p.calls), "cpu-ns/call")
	b.ReportMetric(float64(p.calls)/float64(b.N), "calls/game")
}
