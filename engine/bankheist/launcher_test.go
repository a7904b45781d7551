package bankheist

import (
	"context"
	"io"
	"log/slog"
	"os"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/runner/sandbox"
)

// launcherDecider runs the real bots through one sandbox.Launcher each, as the adapter
// does, in the given sandbox.
type launcherDecider struct {
	launchers []*sandbox.Launcher
	launches  atomic.Int64
}

func newLauncherDecider(tb testing.TB, sb sandbox.Sandbox, names []string) *launcherDecider {
	d := &launcherDecider{}
	for _, spec := range newProcDecider(tb, names).specs {
		l := sandbox.NewLauncher(sb, spec)
		tb.Cleanup(l.Close)
		d.launchers = append(d.launchers, l)
	}
	return d
}

func (d *launcherDecider) Decide(ctx context.Context, c Call) (string, *engine.Fault) {
	d.launches.Add(1)
	return d.launchers[c.Bot].Run(ctx, c.Args, 10*time.Second)
}

// sandboxedDecider is procDecider in a given sandbox: a sandbox per decision (RunArgv).
type sandboxedDecider struct {
	*procDecider
	sb sandbox.Sandbox
}

func (d sandboxedDecider) Decide(ctx context.Context, c Call) (string, *engine.Fault) {
	d.launches.Add(1)
	return sandbox.RunArgv(ctx, d.sb, d.specs[c.Bot], c.Args, 10*time.Second)
}

func realBwrap(tb testing.TB) sandbox.Sandbox {
	tb.Helper()
	if os.Getenv("KOTHD_NO_BWRAP") == "1" {
		tb.Skip("KOTHD_NO_BWRAP=1")
	}
	sb, err := sandbox.NewSandbox("bwrap", slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		tb.Fatalf("sandbox: %v (set KOTHD_NO_BWRAP=1 to skip)", err)
	}
	return sb
}

// TestRealTournamentLauncher is TestRealTournament through launchers in bwrap: the same
// results as a launch per decision (RunArgv) and as the Go strategies, no fault, and one
// launcher process per bot per concurrent tournament at most.
func TestRealTournamentLauncher(t *testing.T) {
	sb := realBwrap(t)
	names := []string{"Lurker", "LimeadeSneaktar", "PassivePanga", "HeCKuSumer", "SnitcherKing"}
	cfg := Config{Bots: entrants(names), Seed: 77, Tournaments: 2, GamesPerTournament: 4, Workers: 2}
	ld := newLauncherDecider(t, sb, names)
	viaLauncher, err := Play(context.Background(), cfg, ld)
	if err != nil {
		t.Fatal(err)
	}
	viaRunArgv, err := Play(context.Background(), cfg, sandboxedDecider{newProcDecider(t, names), sb})
	if err != nil {
		t.Fatal(err)
	}
	var st Strategies
	for _, n := range names {
		s, _ := ExampleStrategy(n)
		st.Bots = append(st.Bots, s)
	}
	sim, err := Play(context.Background(), cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(viaLauncher, viaRunArgv) || !reflect.DeepEqual(viaLauncher, sim) {
		t.Fatalf("launcher, RunArgv and Go strategies disagree:\n%+v\n%+v\n%+v", viaLauncher.Rows, viaRunArgv.Rows, sim.Rows)
	}
	for _, r := range viaLauncher.Rows {
		if r.Errors != 0 {
			t.Errorf("%s: %d faults", r.Bot, r.Errors)
		}
	}
	for i, l := range ld.launchers {
		if n := l.Started(); n < 1 || n > cfg.Workers {
			t.Errorf("%s: %d launcher processes for %d concurrent tournaments", names[i], n, cfg.Workers)
		}
	}
	t.Logf("%d games, %d launches", viaLauncher.Games, ld.launches.Load())
}

// TestRealFaultsLauncher is TestRealFaults through launchers in bwrap.
func TestRealFaultsLauncher(t *testing.T) {
	sb := realBwrap(t)
	names := []string{"Chatterbox", "Crasher", "Lurker"}
	cfg := Config{Bots: entrants(names), Seed: 5, GamesPerTournament: 3}
	res, err := Play(context.Background(), cfg, newLauncherDecider(t, sb, names))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Rows {
		want := res.Games
		if r.Bot == "Lurker" {
			want = 0
		}
		if r.Errors != want || r.Score != float64(240*(res.Games+1)) {
			t.Errorf("%s: %d faults, %v credits; want %d, %d", r.Bot, r.Errors, r.Score, want, 240*(res.Games+1))
		}
	}
}

// benchTournamentIn plays BenchmarkTournament's tournaments with decider d and reports
// games and bot launches per second.
func benchTournamentIn(b *testing.B, names []string, d Decider, launches *atomic.Int64) {
	games := 0
	start := time.Now()
	for i := 0; b.Loop(); i++ {
		cfg := Config{Bots: entrants(names), Seed: uint64(i), Tournaments: 2, GamesPerTournament: 10, Workers: 2}
		res, err := Play(context.Background(), cfg, d)
		if err != nil {
			b.Fatal(err)
		}
		games += res.Games
	}
	sec := time.Since(start).Seconds()
	b.ReportMetric(float64(games)/sec, "games/s")
	b.ReportMetric(float64(launches.Load())/sec, "launches/s")
}

var benchNames = []string{"Lurker", "LimeadeSneaktar", "PassivePanga", "HeCKuSumer", "SnitcherKing"}

func BenchmarkTournamentBwrapLauncher(b *testing.B) {
	d := newLauncherDecider(b, realBwrap(b), benchNames)
	benchTournamentIn(b, benchNames, d, &d.launches)
}

func BenchmarkTournamentBwrapRunArgv(b *testing.B) {
	d := sandboxedDecider{newProcDecider(b, benchNames), realBwrap(b)}
	benchTournamentIn(b, benchNames, d, &d.launches)
}
