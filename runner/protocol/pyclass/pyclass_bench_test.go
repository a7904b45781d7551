package pyclass

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kothd/kothd/runner/sandbox"
	"github.com/kothd/kothd/runner/sandbox/sandboxtest"

	"github.com/kothd/kothd/engine"
)

// startArgs mirrors the forty game's "start" arguments, written without reflection.
type benchStart struct{}

func (benchStart) AppendJSON(b []byte) []byte {
	return append(b, `{"throws":[3],"scores":[10,22,5,0,31,2,8,9],"last":false}`...)
}

// BenchmarkPyclassRoundTrip is one batch of 64 forty "start" calls to a real harness process
// and back, as the lockstep sends a tick. It reports the CPU time per call of this process
// (encoding, pipes, decoding) and of the harness process (unsandboxed only: under bwrap the
// harness is not this process's child).
func BenchmarkPyclassRoundTrip(b *testing.B) { benchRoundTrip(b, sandbox.Unsandboxed{}) }

// BenchmarkPyclassRoundTripBwrap is the same in the bwrap sandbox.
func BenchmarkPyclassRoundTripBwrap(b *testing.B) { benchRoundTrip(b, sandboxtest.NeedBwrap(b)) }

func benchRoundTrip(b *testing.B, sb sandbox.Sandbox) {
	const batch = 64
	dir := pyAnswer(b, `
class GoTo20Bot(Bot):
    def make_throw(self, scores, last_round):
        while sum(self.current_throws) < 20:
            yield True
        yield False
`)
	pool := NewPyPool(sb, fortyConfig(time.Second), []engine.Bot{{Entrant: engine.Entrant{Name: "GoTo20Bot"}, Dir: dir}})
	defer pool.Close()
	ctx := context.Background()
	news := make([]engine.Call, batch)
	starts := make([]engine.Call, batch)
	for g := range batch {
		news[g] = newCall(g)
		starts[g] = engine.Call{Game: g, Method: "start", Args: benchStart{}}
	}
	for _, r := range pool.Exchange(ctx, news) {
		if r.Fault != nil {
			b.Fatal(r.Fault)
		}
	}
	pid := pool.bots[0].proc.Proc.Cmd.Process.Pid
	self0, child0 := cpuOf(os.Getpid()), cpuOf(pid)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for _, r := range pool.Exchange(ctx, starts) {
			if r.Fault != nil || string(r.Result) != "true" {
				b.Fatalf("%+v", r)
			}
		}
	}
	b.StopTimer()
	calls := float64(b.N * batch)
	b.ReportMetric(float64(cpuOf(os.Getpid())-self0)/calls, "go-cpu-ns/call")
	if _, ok := sb.(sandbox.Unsandboxed); ok {
		b.ReportMetric(float64(cpuOf(pid)-child0)/calls, "harness-cpu-ns/call")
	}
}

// cpuOf is the user+system CPU time of process pid so far (clock ticks of 10 ms: run the
// benchmark long enough).
func cpuOf(pid int) time.Duration {
	if pid == os.Getpid() {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * 10 * time.Millisecond
}

// BenchmarkHarnessLoops is a forty tick of 256 packed calls ("start" and "next" in turn, as
// the runner sends them) to a real harness process, unsandboxed, served by its C loop and
// by its Python loop (pyfast.go): harness-cpu-ns/call is the harness process's CPU per call.
// C-stats is the C loop with the stats kothd bench asks for (MeasureHarnesses), which time
// one call in statsEvery (harness.go).
func BenchmarkHarnessLoops(b *testing.B) {
	for _, loop := range []string{"C", "C-stats", "Python"} {
		b.Run(loop, func(b *testing.B) {
			if loop == "C-stats" {
				MeasureHarnesses(StatsEvery)
				defer MeasureHarnesses(0)
			}
			const batch = 256
			dir := pyAnswer(b, `
class GoTo20Bot(Bot):
    def make_throw(self, scores, last_round):
        while sum(self.current_throws) < 20:
            yield True
        yield False
`)
			cfg := fortyConfig(time.Second)
			cfg.PureHarness = loop == "Python"
			if loop != "Python" && !strings.HasPrefix(FastHarness(cfg.Python, false), "C") {
				b.Skip(FastHarness(cfg.Python, false))
			}
			pool := NewPyPool(sandbox.Unsandboxed{}, cfg, []engine.Bot{{Entrant: engine.Entrant{Name: "GoTo20Bot"}, Dir: dir}})
			defer pool.Close()
			ctx := context.Background()
			news, starts, nexts := make([]engine.Call, batch), make([]engine.Call, batch), make([]engine.Call, batch)
			for g := range batch {
				news[g] = engine.Call{Game: g, Method: "new", Args: intsArgs{int32(g % 4)}}
				starts[g] = engine.Call{Game: g, Method: "start", Args: intsArgs{0, 1, 3, 10, 22, 5, 0}}
				nexts[g] = engine.Call{Game: g, Method: "next", Args: intsArgs{3, 4}}
			}
			for _, r := range pool.Exchange(ctx, news) {
				if r.Fault != nil {
					b.Fatal(r.Fault)
				}
			}
			pid := pool.bots[0].proc.Proc.Cmd.Process.Pid
			child0 := cpuOf(pid)
			b.ResetTimer()
			for i := range b.N {
				calls := starts
				if i%2 == 1 {
					calls = nexts
				}
				for _, r := range pool.Exchange(ctx, calls) {
					if r.Fault != nil {
						b.Fatalf("%+v", r)
					}
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(cpuOf(pid)-child0)/float64(b.N*batch), "harness-cpu-ns/call")
		})
	}
}
