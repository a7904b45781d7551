package pyclass

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kothd/kothd/runner/sandbox"

	"github.com/kothd/kothd/engine"
)

// With MeasureHarnesses on, a pool's processes tell at its Close where their time went,
// after the run's context has ended:
// a bot that spends 30 ms of CPU in its own make_throw on each of four turns shows at
// least most of that as bot code, inside the time in the game module's calls.
func TestHarnessStats(t *testing.T) {
	dir := t.TempDir()
	bot := `
import time
class Busy(Bot):
    def make_throw(self, scores, last_round):
        t = time.process_time()
        while time.process_time() - t < 0.03:
            pass
        yield False
`
	if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte(bot), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := InstallTestHarness(dir); err != nil {
		t.Fatal(err)
	}
	MeasureHarnesses(true)
	defer MeasureHarnesses(false)
	before := HarnessTotals()
	cfg := PyConfig{Harness: "forty", Python: "/usr/bin/python3", CallTimeout: 5 * time.Second, StartTimeout: 20 * time.Second, MaxRestarts: 1}
	pool := NewPyPool(sandbox.Unsandboxed{}, cfg, []engine.Bot{{Entrant: engine.Entrant{Name: "Busy"}, Dir: dir}})
	calls := []engine.Call{{Bot: 0, Game: 1, Method: "new", Args: map[string]int{"seat": 0}}}
	for range 4 {
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
	if got.Bot < 60*time.Millisecond || got.InCalls < got.Bot || got.CPU < got.Ready || got.Ready <= 0 {
		t.Errorf("stats %+v: want at least 60 ms of the bots' 120 ms in bot code, within the time in calls", got)
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
	MeasureHarnesses(false)
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
	good := `{"stats":{"ready":0.05,"cpu":0.5,"calls":0.2,"bot":0.1,"n":1000}}`
	h, ok := parseStats([]byte(good))
	if !ok || h.Processes != 1 || h.BotTimed != 1 || h.Calls != 1000 || h.Bot != 100*time.Millisecond {
		t.Fatalf("good line read as %+v, %v", h, ok)
	}
	if h, ok := parseStats([]byte(`{"stats":{"ready":0.05,"cpu":0.5,"calls":0.2,"bot":null,"n":3}}`)); !ok || h.BotTimed != 0 {
		t.Errorf("bot null read as %+v, %v", h, ok)
	}
	for _, bad := range []string{
		`{"b":"1"}`,
		`{"stats":{"ready":-1,"cpu":0.5,"calls":0.2,"bot":0.1,"n":3}}`,
		`{"stats":{"ready":0.1,"cpu":1e300,"calls":0.2,"bot":0.1,"n":3}}`,
		`{"stats":{"ready":0.1,"cpu":0.5,"calls":0.2,"bot":-5,"n":3}}`,
		`{"stats":{"ready":0.1,"cpu":0.5,"calls":0.2,"bot":0.1,"n":-3}}`,
		`{"stats":{"ready":"x","cpu":0.5,"calls":0.2,"bot":0.1,"n":3}}`,
		`{"stats":[1,2]}`,
		`{"stats":{"ready":0.1`,
	} {
		if h, ok := parseStats([]byte(bad)); ok {
			t.Errorf("%s read as %+v", bad, h)
		}
	}
}
