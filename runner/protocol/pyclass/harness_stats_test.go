package pyclass

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/kothd/kothd/runner/sandbox"

	"github.com/kothd/kothd/engine"
)

// With MeasureHarnesses on, a pool's processes tell at its Close where their time went,
// after the run's context has ended: a bot that spends 30 ms of CPU in its own code on
// each of eight calls (its __init__, then make_throw on seven turns) shows at least most
// of that as bot code, inside the time in the game module's calls. Every call costs the
// same, so the two calls timed (StatsEvery) scaled up are all eight.
func TestHarnessStats(t *testing.T) {
	dir := t.TempDir()
	bot := `
import time
def burn():
    t = time.process_time()
    while time.process_time() - t < 0.03:
        pass
class Busy(Bot):
    def __init__(self, *a):
        super().__init__(*a)
        burn()
    def make_throw(self, scores, last_round):
        burn()
        yield False
`
	if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte(bot), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := InstallTestHarness(dir); err != nil {
		t.Fatal(err)
	}
	MeasureHarnesses(StatsEvery)
	defer MeasureHarnesses(0)
	before := HarnessTotals()
	cfg := PyConfig{Harness: "forty", Python: "/usr/bin/python3", CallTimeout: 5 * time.Second, StartTimeout: 20 * time.Second, MaxRestarts: 1}
	pool := NewPyPool(sandbox.Unsandboxed{}, cfg, []engine.Bot{{Entrant: engine.Entrant{Name: "Busy"}, Dir: dir}})
	calls := []engine.Call{{Bot: 0, Game: 1, Method: "new", Args: map[string]int{"seat": 0}}}
	for range 7 {
		calls = append(calls, engine.Call{Bot: 0, Game: 1, Method: "start", Args: map[string]any{"throws": []int{3}, "scores": []int{0}, "last": false}})
	}
	// The run's context ends before the pool closes, as a cycle's does: the stats are
	// asked for all the same.
	ctx, cancel := context.WithCancel(context.Background())
	for _, r := range pool.Exchange(ctx, calls) {
		if r.Fault != nil {
			t.Fatalf("fault: %+v", r.Fault)
		}
	}
	cancel()
	pool.Close()
	got := HarnessTotals().Sub(before)
	if got.Processes < 1 || got.BotTimed < 1 || got.Calls < int64(len(calls)) {
		t.Fatalf("no stats counted: %+v", got)
	}
	if got.Bot < 120*time.Millisecond || got.InCalls < got.Bot || got.CPU < got.Ready || got.Ready <= 0 {
		t.Errorf("stats %+v: want at least 120 ms of the bots' 240 ms in bot code, within the time in calls", got)
	}
}

// The harness times one call in n ("stats": n in its setup), the first and then every
// n-th, counted across batches, and says how many it timed. With n = 7 and batches of 5
// and 9 "new" calls (games 1-5, 6-14), then of 5 and 9 "start" calls, calls 0, 7, 14 and
// 21 are timed: the news of games 1 and 3, the starts of games 1 and 8. A bot busy only in
// the starts of games 8 and 9 shows game 8's time and not game 9's. A count restarted at
// each batch would time 6 calls and not game 8's start; timing every call, 28 and both.
// Both loops alike.
func TestStatsTimeOneCallInN(t *testing.T) {
	t.Setenv(FastEnv, "")
	dir := pyAnswer(t, `
import time
class Picky(Bot):
    def make_throw(self, scores, last_round):
        if scores[0] == 1:  # games 8 and 9
            t = time.process_time()
            while time.process_time() - t < 0.02:
                pass
        yield False
`)
	var news, starts []engine.Call
	for g := 1; g <= 14; g++ {
		news = append(news, call(g, "new", intsArgs{0}))
		busy := int32(0)
		if g == 8 || g == 9 {
			busy = 1
		}
		starts = append(starts, call(g, "start", intsArgs{0, 1, 3, busy}))
	}
	lines := []string{
		packedLine(t, 1, 3, news[:5]...), packedLine(t, 1, 3, news[5:]...),
		packedLine(t, 1, 3, starts[:5]...), packedLine(t, 1, 3, starts[5:]...),
		`{"stats":true}`,
	}
	stats := regexp.MustCompile(`"bot":([0-9.e+-]+),"n":28,"ns":4}}`)
	for _, fast := range []bool{false, true} {
		out, _ := harnessOutput(t, dir, "forty", "Picky", lines, fast, StatsEvery)
		m := stats.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("fast %v: no stats line of 28 calls, 4 timed:\n%s", fast, out)
		}
		// Wall time less the waits for a CPU, on a machine that may be busy: game 8's
		// 0.02 s is there, game 9's would make it 0.04.
		if bot, _ := strconv.ParseFloat(m[1], 64); bot < 0.01 || bot >= 0.039 {
			t.Errorf("fast %v: bot time %v s, want game 8's 0.02 s alone:\n%s", fast, bot, out)
		}
	}
}

// Without MeasureHarnesses (a daemon's runs) nothing is asked nor counted.
func TestHarnessStatsOff(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte("class Idle(Bot):\n    def make_throw(self, s, l):\n        yield False\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := InstallTestHarness(dir); err != nil {
		t.Fatal(err)
	}
	MeasureHarnesses(0)
	cfg := PyConfig{Harness: "forty", Python: "/usr/bin/python3", CallTimeout: time.Second, StartTimeout: 20 * time.Second, MaxRestarts: 1}
	pool := NewPyPool(sandbox.Unsandboxed{}, cfg, []engine.Bot{{Entrant: engine.Entrant{Name: "Idle"}, Dir: dir}})
	pool.Exchange(context.Background(), []engine.Call{{Bot: 0, Game: 1, Method: "new", Args: map[string]int{"seat": 0}}})
	if pool.bots[0].measured {
		t.Error("a process started with the stats off is marked measured")
	}
	pool.Close()
}

// A stats line is the bot's word: anything but well-formed figures within bounds is
// ignored, so a bot can skew only the bench's figures, within bounds, never make a sum
// overflow or turn NaN.
func TestParseStatsRejectsGarbage(t *testing.T) {
	good := `{"stats":{"ready":0.05,"cpu":0.5,"calls":0.2,"bot":0.1,"n":1000,"ns":1000}}`
	h, ok := parseStats([]byte(good))
	if !ok || h.Processes != 1 || h.BotTimed != 1 || h.Calls != 1000 || h.Bot != 100*time.Millisecond {
		t.Fatalf("good line read as %+v, %v", h, ok)
	}
	if h, ok := parseStats([]byte(`{"stats":{"ready":0.05,"cpu":0.5,"calls":0.2,"bot":null,"n":3,"ns":3}}`)); !ok || h.BotTimed != 0 {
		t.Errorf("bot null read as %+v, %v", h, ok)
	}
	// One call in seven timed: the sample scaled up.
	h, ok = parseStats([]byte(`{"stats":{"ready":0.05,"cpu":0.5,"calls":0.2,"bot":0.1,"n":1000,"ns":250}}`))
	if !ok || h.Calls != 1000 || h.InCalls != 800*time.Millisecond || h.Bot != 400*time.Millisecond {
		t.Errorf("a sampled line read as %+v, %v", h, ok)
	}
	for _, bad := range []string{
		`{"b":"1"}`,
		`{"stats":{"ready":-1,"cpu":0.5,"calls":0.2,"bot":0.1,"n":3}}`,
		`{"stats":{"ready":0.1,"cpu":1e300,"calls":0.2,"bot":0.1,"n":3}}`,
		`{"stats":{"ready":0.1,"cpu":0.5,"calls":0.2,"bot":-5,"n":3}}`,
		`{"stats":{"ready":0.1,"cpu":0.5,"calls":0.2,"bot":0.1,"n":-3}}`,
		`{"stats":{"ready":"x","cpu":0.5,"calls":0.2,"bot":0.1,"n":3}}`,
		`{"stats":[1,2]}`,
		`{"stats":{"ready":0.1,"cpu":0.5,"calls":0.2,"bot":0.1,"n":3}}`, // no ns: how many were timed is unknown
		`{"stats":{"ready":0.1,"cpu":0.5,"calls":0.2,"bot":0.1,"n":3,"ns":4}}`,
		`{"stats":{"ready":0.1,"cpu":0.5,"calls":0.2,"bot":0.1,"n":3,"ns":-1}}`,
		`{"stats":{"ready":0.1,"cpu":0.5,"calls":0.2,"bot":0.1,"n":3,"ns":0}}`,
		`{"stats":{"ready":0.1,"cpu":0.5,"calls":900000,"bot":0.1,"n":3000,"ns":1}}`,
		`{"stats":{"ready":0.1`,
	} {
		if h, ok := parseStats([]byte(bad)); ok {
			t.Errorf("%s read as %+v", bad, h)
		}
	}
}
