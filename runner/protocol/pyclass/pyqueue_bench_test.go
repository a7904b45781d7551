package pyclass

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/kothd/kothd/runner/sandbox"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/engine/forty"
)

// BenchmarkFortyTournament plays forty tournaments of 12 real harness processes (unsandboxed;
// simple bots, so the protocol's and the scheduler's cost shows), 1024 and 2048 games in
// flight (one batch per bot per tick). One op is one game. It reports
// CPU time per decision of this process (go-cpu-ns/dec) and of the harnesses
// (bots-cpu-ns/dec; /proc's 10 ms ticks: run a few thousand games).
func BenchmarkFortyTournament(b *testing.B) {
	for _, conc := range []int{1024, 2048} {
		b.Run(fmt.Sprintf("conc-%d", conc), func(b *testing.B) { benchTournament(b, conc) })
	}
}

func benchTournament(b *testing.B, conc int) {
	const n = 12
	var bots []engine.Bot
	var entrants []engine.Entrant
	for i := range n {
		dir := pyAnswer(b, fmt.Sprintf(`
class Go%dBot(Bot):
    def make_throw(self, scores, last_round):
        while sum(self.current_throws) < %d:
            yield True
        yield False
`, i, 10+i))
		name := fmt.Sprintf("Go%dBot", i)
		e := engine.Entrant{Name: name, Seed: uint64(i)}
		bots = append(bots, engine.Bot{Entrant: e, Dir: dir})
		entrants = append(entrants, e)
	}
	pool := NewPyPool(sandbox.Unsandboxed{}, fortyConfig(time.Second), bots)
	defer pool.Close()
	ctx := context.Background()
	var news []engine.Call // start the processes
	for i := range n {
		news = append(news, engine.Call{Bot: i, Game: -1, Method: "new", Args: map[string]int{"seat": 0}})
	}
	for _, r := range pool.Exchange(ctx, news) {
		if r.Fault != nil {
			b.Fatal(r.Fault)
		}
	}
	botCPU := func() time.Duration {
		var d time.Duration
		for _, p := range pool.bots {
			d += cpuOf(p.proc.Proc.Cmd.Process.Pid)
		}
		return d
	}
	self0, bots0 := cpuOf(os.Getpid()), botCPU()
	b.ResetTimer()
	if _, err := forty.Run(ctx, pool, entrants, forty.Options{Games: b.N, Seed: 1, Concurrency: conc}); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	var decisions int
	for i := range n {
		decisions += pool.Stats(i).Counts()[engine.OK]
	}
	b.ReportMetric(float64(cpuOf(os.Getpid())-self0)/float64(decisions), "go-cpu-ns/dec")
	b.ReportMetric(float64(botCPU()-bots0)/float64(decisions), "bots-cpu-ns/dec")
	b.ReportMetric(float64(decisions)/float64(b.N), "dec/game")
}
