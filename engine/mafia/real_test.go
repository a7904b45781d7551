package mafia_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/engine/mafia"
	"github.com/kothd/kothd/runner/protocol/dirfiles"
	"github.com/kothd/kothd/runner/sandbox"
)

// Real bots (testdata/bots, bash and sh scripts) played through the runner's dirfiles
// protocol, unsandboxed.

// Two of each voter, so that the town's votes converge and games end in a few days.
var realNames = []string{"CopTrust", "CopTrust", "Lynchy", "Lynchy", "Talker", "Mute"}

// freshBots copies the test bots into a new directory, each under its game name, as a
// tournament starts from fresh copies of the submissions.
func freshBots(tb testing.TB, names []string, sb sandbox.Sandbox) (*dirfiles.DirPool, []engine.Entrant) {
	tb.Helper()
	root := tb.TempDir()
	lineup := mafia.NewLineup(names)
	var bots []engine.Bot
	var entrants []engine.Entrant
	for i, n := range names {
		dir := filepath.Join(root, lineup.Names[i])
		if err := os.MkdirAll(dir, 0o755); err != nil {
			tb.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join("testdata", "bots", n, dirfiles.RunFile))
		if err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, dirfiles.RunFile), b, 0o755); err != nil {
			tb.Fatal(err)
		}
		bots = append(bots, engine.Bot{Entrant: engine.Entrant{Name: n}, Dir: dir})
		entrants = append(entrants, engine.Entrant{Name: n})
	}
	pool := dirfiles.NewDirPool(sb, dirfiles.DirConfig{Timeout: 10 * time.Second}, bots)
	tb.Cleanup(pool.Close)
	return pool, entrants
}

// counting counts the bot launches of a tournament.
type counting struct {
	*dirfiles.DirPool
	runs atomic.Int64
}

func (c *counting) Run(ctx context.Context, at engine.At, bot int, collect bool) (string, *engine.Fault) {
	c.runs.Add(1)
	return c.DirPool.Run(ctx, at, bot, collect)
}

func TestRealGame(t *testing.T) {
	play := func() (*engine.Result, *dirfiles.DirPool) {
		pool, entrants := freshBots(t, realNames, sandbox.Unsandboxed{})
		// Master seed 6 deals roles that end this lineup's first game with a mafia victory
		// at the dawn of day 1: about 560 launches. Chosen with the Go stand-ins of
		// standin_test.go (TestSearchSeeds), which play these bots' scripts in microseconds.
		res, err := mafia.Play(context.Background(), pool, entrants, 6, mafia.Options{Games: 1, Parallel: 2}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res, pool
	}
	a, pool := play()
	b, _ := play()
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("same seed, same bots, different tables:\n%+v\n%+v", a, b)
	}
	if a.Games != 1 {
		t.Fatalf("the game was not scored: %+v", a)
	}
	if a.Voided != 0 {
		t.Errorf("%d games voided", a.Voided)
	}
	for i, n := range realNames {
		if f := pool.Stats(i).Faults(); f != 0 {
			t.Errorf("%s: %d faults, first %+v", n, f, pool.Stats(i).First())
		}
		if pool.Stats(i).Counts()[engine.OK] == 0 {
			t.Errorf("%s was never run", n)
		}
	}
	for _, r := range a.Rows {
		if r.Played != a.Games {
			t.Errorf("%s played %d of %d scored games", r.Bot, r.Played, a.Games)
		}
	}
	t.Logf("summary %q", a.Summary)
	for _, r := range a.Rows {
		t.Logf("%-10s %v", r.Bot, r.Cells)
	}
}

// BenchmarkRealGame plays whole games of six real shell bots, two at a time in each round,
// and reports games and bot launches per second, unsandboxed and (where it works) in bwrap.
func BenchmarkRealGame(b *testing.B) {
	for _, name := range []string{"none", "bwrap"} {
		b.Run(name, func(b *testing.B) {
			sb, err := sandbox.NewSandbox(name, slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err != nil {
				b.Skip(err)
			}
			pool, entrants := freshBots(b, realNames, sb)
			c := &counting{DirPool: pool}
			games := 0
			for b.Loop() {
				if _, err := mafia.Play(context.Background(), c, entrants, uint64(games), mafia.Options{Games: 1, Parallel: 2}, nil); err != nil {
					b.Fatal(err)
				}
				games++
			}
			s := b.Elapsed().Seconds()
			b.ReportMetric(float64(games)/s, "games/s")
			b.ReportMetric(float64(c.runs.Load())/s, "launches/s")
			b.ReportMetric(float64(c.runs.Load())/float64(games), "launches/game")
		})
	}
}
