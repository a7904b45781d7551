package referee_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/kothd/kothd/engine/referee"
)

// benchDir is the benchmark's referee, with its echo bot.
const benchDir = "engine/referee/testdata/bench"

// The relay's cost per bot request: a referee asks an echo bot b.N times, through kothd's
// relay (the referee's line to kothd, kothd's line to the bot's process and back, and
// kothd's answer to the referee), both in the bwrap sandbox. kothd-µs/req is the CPU time
// kothd's own process spends per request (user and system, from getrusage); the referee's
// and the bot's CPU is theirs. ref-µs/req is the wall time per request the referee sees.
func BenchmarkRelay(b *testing.B) { benchReferee(b, "relay") }

// The same requests straight through a pipe between the referee and its own copy of the
// bot, which it starts itself (in its sandbox): what a controller that runs its bots
// itself pays, and no kothd CPU at all. ref-µs/req against BenchmarkRelay's is the relay's
// added latency.
func BenchmarkDirectPipe(b *testing.B) { benchReferee(b, "direct") }

func benchReferee(b *testing.B, mode string) {
	bot, err := os.ReadFile(filepath.Join("testdata", "bench", "bot.py"))
	if err != nil {
		b.Fatal(err)
	}
	r, _, _ := hostileRun(b, benchDir, func(string) map[string]string {
		return map[string]string{"A": string(bot), "B": string(bot)}
	}, "shape: random\nseats: 1\ntimeout: 10m\n")
	r.Options.(*referee.Options).Settings = map[string]any{"mode": mode, "asks": b.N}
	r.Games = 1
	before := cpu()
	b.ResetTimer()
	res, err := referee.Descriptor.Play(context.Background(), r)
	b.StopTimer()
	if err != nil || res.Games != 1 {
		b.Fatalf("%v %+v", err, res)
	}
	var refNS float64
	for _, row := range res.Rows {
		if row.Played == 1 {
			refNS, _ = strconv.ParseFloat(row.Cells[len(row.Cells)-1], 64)
		}
	}
	b.ReportMetric(float64((cpu()-before).Microseconds())/float64(b.N), "kothd-µs/req")
	b.ReportMetric(refNS/1e3/float64(b.N), "ref-µs/req")
}

// cpu is the CPU time this process has used.
func cpu() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
