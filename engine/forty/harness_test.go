package forty_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/engine/forty"
	"github.com/kothd/kothd/runner/protocol/pyclass"
	"github.com/kothd/kothd/runner/sandbox"
)

// Real Python bot processes through the pyclass harness: the bots below are written the way
// answers are, including broken ones.
var testBots = map[string]string{
	"GoTo20Bot": `
class GoTo20Bot(Bot):
    def make_throw(self, scores, last_round):
        while sum(self.current_throws) < 20:
            yield True
        yield False
`,
	"RandomBot": `
import random
class RandomBot(Bot):
    def make_throw(self, scores, last_round):
        while random.random() < 0.7:
            yield True
        yield False
`,
	"Raiser": `
class Raiser(Bot):
    def make_throw(self, scores, last_round):
        yield True
        raise IndexError("oops")
`,
	"Chatty": `
class Chatty(Bot):
    def make_throw(self, scores, last_round):
        print("debug: my scores", scores)   # must not corrupt the protocol
        yield len(self.current_throws) < 3
`,
	"NotIterable": `
class NotIterable(Bot):
    def make_throw(self, scores, last_round):
        return True
`,
}

func prepare(t testing.TB) []engine.Bot {
	t.Helper()
	root := t.TempDir()
	var bots []engine.Bot
	for _, name := range []string{"GoTo20Bot", "RandomBot", "Raiser", "Chatty", "NotIterable"} {
		dir := filepath.Join(root, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte(testBots[name]), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := pyclass.InstallHarness(dir, forty.Descriptor.Harness.Module, forty.Descriptor.Harness.Source); err != nil {
			t.Fatal(err)
		}
		bots = append(bots, engine.Bot{Entrant: engine.Entrant{Name: name, Seed: engine.SubSeed(7, name)}, Dir: dir})
	}
	return bots
}

func pyConfig() pyclass.PyConfig {
	return pyclass.PyConfig{Harness: "forty", Python: "/usr/bin/python3", CallTimeout: 2 * time.Second, StartTimeout: 20 * time.Second, MaxRestarts: 3}
}

func entrantsOf(bots []engine.Bot) []engine.Entrant {
	var out []engine.Entrant
	for _, b := range bots {
		out = append(out, engine.Entrant{Name: b.Name})
	}
	return out
}

func runOnce(t *testing.T, bots []engine.Bot, games int) (*forty.Tally, *pyclass.PyPool) {
	return runAt(t, bots, games, 16)
}

func runAt(t *testing.T, bots []engine.Bot, games, concurrency int) (*forty.Tally, *pyclass.PyPool) {
	pool := pyclass.NewPyPool(sandbox.Unsandboxed{}, pyConfig(), bots)
	t.Cleanup(pool.Close)
	tally, err := forty.Run(context.Background(), pool, entrantsOf(bots), forty.Options{Games: games, Seed: 42, Concurrency: concurrency})
	if err != nil {
		t.Fatal(err)
	}
	return tally, pool
}

func TestRealBots(t *testing.T) {
	bots := prepare(t)
	tally, pool := runOnce(t, bots, 300)
	if tally.Games != 300 || tally.Voided != 0 {
		t.Fatalf("games %d voided %d", tally.Games, tally.Voided)
	}
	wins := 0
	played := 0
	for _, b := range tally.Bots {
		wins += b.Wins
		played += b.Played
	}
	if played != 4*tally.Games { // 4 to 7 bots play in groups of 4 (§5.1)
		t.Errorf("seats filled %d, want %d", played, 4*tally.Games)
	}
	if wins < tally.Games {
		t.Errorf("sum of wins %d < games %d", wins, tally.Games)
	}
	byName := map[string]forty.BotTally{}
	for i, b := range bots {
		byName[b.Name] = tally.Bots[i]
	}
	if byName["Raiser"].Errors == 0 || byName["NotIterable"].Errors == 0 {
		t.Errorf("faulty bots recorded no errors: Raiser %d NotIterable %d", byName["Raiser"].Errors, byName["NotIterable"].Errors)
	}
	if byName["GoTo20Bot"].Errors != 0 || byName["Chatty"].Errors != 0 {
		t.Errorf("well-behaved bots recorded errors: %+v %+v", byName["GoTo20Bot"], byName["Chatty"])
	}
	if c := pool.Stats(2).Counts()[engine.Crash]; c != byName["Raiser"].Errors {
		t.Errorf("runner counted %d crashes for Raiser, engine %d", c, byName["Raiser"].Errors)
	}
	if f := pool.Stats(2).First(); f == nil || f.Input == "" {
		t.Errorf("first fault of Raiser not kept: %+v", f)
	}
	// A bot that never throws again (NotIterable fails every make_throw: automatic throw
	// only) must show exactly one throw per turn.
	if b := byName["NotIterable"]; b.Throws != b.Turns {
		t.Errorf("NotIterable threw %d times in %d turns", b.Throws, b.Turns)
	}
}

func TestSameSeedSameTable(t *testing.T) {
	bots := prepare(t)
	a, _ := runOnce(t, bots, 200)
	b, _ := runOnce(t, bots, 200)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("two runs with seed 42 differ:\n%+v\n%+v", a, b)
	}
}

// The games in flight do not change the table, even for a bot that draws from Python's
// module-level random (RandomBot): each game has its own stream of it.
func TestGamesInFlightDoNotChangeTheTable(t *testing.T) {
	bots := prepare(t)
	a, _ := runAt(t, bots, 150, 1)
	b, _ := runAt(t, bots, 150, 40)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("seed 42 with 1 and 40 games in flight differ:\n%+v\n%+v", a, b)
	}
}

// BenchmarkGames measures games/second with real harness processes (5 bots, 4 seats).
func BenchmarkGames(b *testing.B) {
	bots := prepare(b)
	pool := pyclass.NewPyPool(sandbox.Unsandboxed{}, pyConfig(), bots)
	defer pool.Close()
	games := 2000
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := forty.Run(context.Background(), pool, entrantsOf(bots), forty.Options{Games: games, Seed: uint64(i), Concurrency: 256}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(games*b.N)/b.Elapsed().Seconds(), "games/s")
}

// The harness's two batch loops (runner/protocol/pyclass/pyfast.go: the C loop kothd builds,
// which serves forty's next and start without Handler.call, and the Python loop that serves
// when it cannot be built or is switched off) play the same table, faults included.
func TestFastAndPythonLoopsSameTable(t *testing.T) {
	// Both loops are compared whatever the environment says (KOTHD_PYCLASS_FAST=off runs the
	// rest of the suite on the Python loop).
	t.Setenv(pyclass.FastEnv, "")
	if loop := pyclass.FastHarness(pyConfig().Python, false); !strings.HasPrefix(loop, "C") {
		t.Fatalf("the C loop does not build on this host: %s", loop)
	}
	bots := prepare(t)
	installed := func() bool {
		m, _ := filepath.Glob(filepath.Join(bots[0].Dir, pyclass.HarnessDir, "_pyclassfast*"))
		return len(m) == 1
	}
	fast, _ := runOnce(t, bots, 300)
	if !installed() {
		t.Fatal("the C loop was not installed beside the harness")
	}
	t.Setenv(pyclass.FastEnv, "off")
	pure, _ := runOnce(t, bots, 300)
	if installed() {
		t.Fatal("the C loop stayed beside the harness with the switch off")
	}
	if !reflect.DeepEqual(fast, pure) {
		t.Fatalf("the C loop's and the Python loop's tables differ:\n%+v\n%+v", fast, pure)
	}
}
