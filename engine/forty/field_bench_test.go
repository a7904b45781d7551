package forty_test

import (
	"context"
	"encoding/json"
	"html"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/engine/forty"
	"github.com/kothd/kothd/runner/protocol/pyclass"
	"github.com/kothd/kothd/runner/sandbox"
)

// The benchmark field (testdata/fortyfield, 48 answers written like the real question's):
// its answers as the API's JSON, each answer's code blocks executed as one bot.py, one bot
// per class deriving from Bot, as kothd's class-blocks extraction makes them.
var (
	fieldCode  = regexp.MustCompile(`(?s)<pre[^>]*><code>(.*?)</code></pre>`)
	fieldClass = regexp.MustCompile(`(?m)^class (\w+)\(Bot\):`)
)

func fieldBots(b *testing.B, snapshot string) []engine.Bot {
	b.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", snapshot, "codegolf", "177765", "answers.1.json"))
	if err != nil {
		b.Fatal(err)
	}
	var page struct {
		Items []struct {
			AnswerID int64  `json:"answer_id"`
			Body     string `json:"body"`
		} `json:"items"`
	}
	if err := json.Unmarshal(data, &page); err != nil {
		b.Fatal(err)
	}
	root := b.TempDir()
	var bots []engine.Bot
	for _, it := range page.Items {
		code := ""
		for _, m := range fieldCode.FindAllStringSubmatch(it.Body, -1) {
			code += html.UnescapeString(m[1]) + "\n"
		}
		dir := filepath.Join(root, strconv.FormatInt(it.AnswerID, 10))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte(code), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := pyclass.InstallHarness(dir, forty.Descriptor.Harness.Module, forty.Descriptor.Harness.Source); err != nil {
			b.Fatal(err)
		}
		for _, m := range fieldClass.FindAllStringSubmatch(code, -1) {
			bots = append(bots, engine.Bot{Entrant: engine.Entrant{Name: m[1], Seed: engine.SubSeed(1, m[1])}, AnswerID: it.AnswerID, Dir: dir})
		}
	}
	return bots
}

// BenchmarkField plays the benchmark field's 49 bots, each in its own harness process in
// the bwrap sandbox (cgroups, a share per answer), at the descriptor's games in flight, as
// kothd bench forty --snapshot testdata/fortyfield does without the rest of a cycle. One op
// is one game; the bots' start-ups are counted, as in kothd bench: play thousands of games
// (-benchtime 20000x) for them to vanish. It reports games/s, decisions/s, and the CPU per
// decision of this process and of the bots' sandboxes (their cgroups).
func BenchmarkField(b *testing.B) { benchField(b, "fortyfield") }

// BenchmarkFieldFloor is the same with the floor field (testdata/fortyfloor: bots that
// return a fixed list): what kothd and the harness cost per decision.
func BenchmarkFieldFloor(b *testing.B) { benchField(b, "fortyfloor") }

func benchField(b *testing.B, snapshot string) {
	if os.Getenv("KOTHD_NO_BWRAP") == "1" {
		b.Skip("KOTHD_NO_BWRAP=1: sandbox benchmarks skipped on request")
	}
	sb, err := sandbox.NewSandbox("bwrap", slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		b.Skip("no bwrap sandbox with cgroups here: ", err)
	}
	bots := fieldBots(b, snapshot)
	shares, err := sandbox.NewShares(sb, 0)
	if err != nil {
		b.Fatal(err)
	}
	cfg := pyConfig()
	cfg.CallTimeout, cfg.Shares = time.Second, shares
	pool := pyclass.NewPyPool(sb, cfg, bots)
	conc := forty.Descriptor.Concurrency
	ctx := context.Background()
	self0 := selfCPU()
	b.ResetTimer()
	if _, err := forty.Run(ctx, pool, entrantsOf(bots), forty.Options{Games: b.N, Seed: 1, Concurrency: conc}); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	self := selfCPU() - self0
	decisions := poolDecisions(pool, len(bots))
	bots0, _ := sandbox.SandboxesCPU()
	pool.Close() // releases the sandboxes: their cgroups' CPU is counted then
	botsCPU, _ := sandbox.SandboxesCPU()
	_ = shares.Close()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "games/s")
	b.ReportMetric(float64(decisions)/b.Elapsed().Seconds(), "decisions/s")
	b.ReportMetric(float64(self.Microseconds())/float64(decisions), "kothd-µs/decision")
	b.ReportMetric(float64((botsCPU-bots0).Microseconds())/float64(decisions), "bots-µs/decision")
}

func poolDecisions(p *pyclass.PyPool, bots int) int64 {
	var n int64
	for i := range bots {
		for _, c := range p.Stats(i).Counts() {
			n += int64(c)
		}
	}
	return n
}

// selfCPU is this process's user+sys CPU time.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
