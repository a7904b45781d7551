package bankheist

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/runner/sandbox"
)

// Real bots, written the way the answers are: each is a program launched once per decision.
var realBots = map[string]struct {
	file, src string
	argv      []string
}{
	"Lurker": {"bot.sh", "echo 0\n", []string{"bash", "bot.sh"}},
	"LimeadeSneaktar": {"bot.sh", `if [ "$2" = 1 ]; then
    echo 1
elif [ "${12}" = 1 ] && [ "$1" -lt 900 ]; then
    echo "change jobs"
else
    echo "double cross"
fi
`, []string{"bash", "bot.sh"}},
	"PassivePanga": {"bot.py", `import sys
credits = int(sys.argv[9])
if sys.argv[2] == "1":
    print(69 if credits > 69 else 0)
else:
    print("!guncheck")
`, []string{"/usr/bin/python3", "bot.py"}},
	"HeCKuSumer": {"bot.py", `import sys
if sys.argv[2] == "1":
    print("  %d \n" % int(0.1 * int(sys.argv[9])))
else:
    print("!guncheck")
`, []string{"/usr/bin/python3", "bot.py"}},
	"SnitcherKing": {"bot.sh", `[ "$2" = 1 ] && echo 1 || echo finger`, []string{"bash", "bot.sh"}},
	"Chatterbox": {"bot.py", `import sys
print("I bet everything I have!" if sys.argv[2] == "1" else "Let's go!")
`, []string{"/usr/bin/python3", "bot.py"}},
	"Crasher": {"bot.sh", `echo 5; exit 2`, []string{"bash", "bot.sh"}},
}

// procDecider launches real bot processes, like the adapter does.
type procDecider struct {
	specs    []sandbox.ProcSpec
	launches atomic.Int64
}

func newProcDecider(t testing.TB, names []string) *procDecider {
	d := &procDecider{}
	for _, n := range names {
		b, ok := realBots[n]
		if !ok {
			t.Fatalf("no real bot %s", n)
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, b.file), []byte(b.src), 0o644); err != nil {
			t.Fatal(err)
		}
		d.specs = append(d.specs, sandbox.ProcSpec{Dir: dir, Argv: b.argv, Limits: sandbox.Limits{OutputBytes: 64 << 10}})
	}
	return d
}

func (d *procDecider) Decide(ctx context.Context, c Call) (string, *engine.Fault) {
	d.launches.Add(1)
	return sandbox.RunArgv(ctx, sandbox.Unsandboxed{}, d.specs[c.Bot], c.Args, 10*time.Second)
}

func entrants(names []string) []engine.Entrant {
	var out []engine.Entrant
	for _, n := range names {
		out = append(out, engine.Entrant{Name: n})
	}
	return out
}

// TestRealTournament plays short tournaments with real bash and python bots and checks the
// results equal those of the same strategies written in Go: the arguments reach the
// programs intact and their answers come back read by the same rules.
func TestRealTournament(t *testing.T) {
	names := []string{"Lurker", "LimeadeSneaktar", "PassivePanga", "HeCKuSumer", "SnitcherKing"}
	cfg := Config{Bots: entrants(names), Seed: 77, Tournaments: 2, GamesPerTournament: 4, Workers: 2}
	d := newProcDecider(t, names)
	real, err := Play(context.Background(), cfg, d)
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
	if !reflect.DeepEqual(real, sim) {
		t.Fatalf("real processes and Go strategies disagree:\n%+v\n%+v", real.Rows, sim.Rows)
	}
	for _, r := range real.Rows {
		if r.Errors != 0 {
			t.Errorf("%s: %d faults", r.Bot, r.Errors)
		}
		if r.Bot == "Lurker" && r.Score != float64(240*(real.Games+2)) { // two tournaments: G1+1 + G2+1
			t.Errorf("Lurker %v, want %d", r.Score, 240*(real.Games+2))
		}
	}
	if d.launches.Load() < int64(len(names)*real.Games) {
		t.Fatalf("%d launches for %d games of %d bots", d.launches.Load(), real.Games, len(names))
	}
	t.Logf("%d games, %d launches", real.Games, d.launches.Load())
}

// TestRealFaults: a bot printing garbage and one exiting non-zero are counted and bet 0;
// the tournament goes on, and they live on their paychecks.
func TestRealFaults(t *testing.T) {
	names := []string{"Chatterbox", "Crasher", "Lurker"}
	cfg := Config{Bots: entrants(names), Seed: 5, GamesPerTournament: 3}
	res, err := Play(context.Background(), cfg, newProcDecider(t, names))
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

// BenchmarkTournament plays tournaments of real bash and python bots, unsandboxed, and
// reports games and bot launches per second.
func BenchmarkTournament(b *testing.B) {
	d := newProcDecider(b, benchNames)
	benchTournamentIn(b, benchNames, d, &d.launches)
}
