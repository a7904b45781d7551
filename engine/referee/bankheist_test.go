package referee_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/cron/crontest"
	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/engine/bankheist"
	"github.com/kothd/kothd/engine/referee"
	"github.com/kothd/kothd/runner/protocol"
	"github.com/kothd/kothd/runner/protocol/argv"
)

// heisters are five of the question's example bots as answers would post them (Python 3,
// launched per decision with the 31 arguments), between them betting, sticking, fingering
// and double-crossing.
var heisters = [][2]string{
	{"PassivePanga", "import sys\nc = int(sys.argv[9])\nprint((69 if c > 69 else 0) if sys.argv[2] == '1' else '!guncheck')\n"},
	{"Lurker", "print(0)\n"},
	{"SnitcherKing", "import sys\nprint(1 if sys.argv[2] == '1' else 'finger')\n"},
	{"LimeadeSneaktar", "import sys\na = [None] + sys.argv[1:]\nprint(1 if a[2] == '1' else 'change jobs' if a[12] == '1' and int(a[1]) < 900 else 'double cross')\n"},
	{"HeCKuSumer", "import sys\nprint(int(0.1 * int(sys.argv[9])) if sys.argv[2] == '1' else '!guncheck')\n"},
}

// playArgv plays game g with the heisters through the argv protocol in the real sandbox and
// returns each bot's score in every unit (tournament) of the run.
func playArgv(t *testing.T, g *engine.Game, options string, games int) (map[string][]float64, *engine.Result) {
	t.Helper()
	dir := t.TempDir()
	cfg := crontest.Config(t, dir)
	crontest.NeedLanguage(t, cfg, "python3")
	var node yaml.Node
	if err := yaml.Unmarshal([]byte(options), &node); err != nil {
		t.Fatal(err)
	}
	opts, err := g.DecodeOptions(node.Content[0])
	if err != nil {
		t.Fatal(err)
	}
	var bots []engine.Bot
	for i, h := range heisters {
		d := filepath.Join(dir, "bots", h[0])
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "bot.py"), []byte(h[1]), 0o644); err != nil {
			t.Fatal(err)
		}
		bots = append(bots, engine.Bot{Entrant: engine.Entrant{Name: h[0]}, AnswerID: int64(i + 1), Dir: d, Run: cfg.Languages["python3"].Run})
	}
	ch := &config.Challenge{Name: "bankheist", Limits: config.Limits{CallTimeout: config.Duration(time.Minute), MemoryMB: 512, Procs: 16, OutputKB: 64, DiskMB: 16}}
	env := &protocol.Env{Challenge: ch, Config: cfg, Game: g, Options: opts, Sandbox: crontest.Sandbox(t)}
	work, cleanup, err := protocol.Scratch(env, "run", bots, false)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	env.Bots = work
	r := engine.Run{Bots: engine.Entrants(work), Seed: 20261129, Games: games, Concurrency: 2, Options: opts}
	_, closeFn, err := argv.Protocol{}.Open(env, &r)
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	r.Referee = protocol.Referees(env)
	res, err := g.Play(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	per := map[string][]float64{}
	for u := range res.Units {
		for name, v := range res.Resample.Rescore([]int{u}) {
			per[name] = append(per[name], v)
		}
	}
	return per, res
}

func meanVar(v []float64) (m, s2 float64) {
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	for _, x := range v {
		s2 += (x - m) * (x - m)
	}
	return m, s2 / float64(len(v)-1)
}

// Bank Heist hosted by its referee (examples/bankheist/referee.py, the original
// controller's rules in Python, a tournament a referee game) agrees with the native
// engine: the same bots, the same tournament length, every bot's mean final credits over
// the tournaments within the statistical noise of the two (Welch's z below 4 for each; the
// two draw from different generators, so only the distributions can agree).
func TestBankHeistRefereeAgreesWithTheEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("two contests of real bots launched per decision: minutes on a busy machine")
	}
	const tournaments, n = 10, 10
	native, nres := playArgv(t, bankheist.Descriptor, fmt.Sprintf("games_per_tournament: %d\n", n), tournaments*n)
	refd, rres := playArgv(t, referee.ArgvDescriptor, fmt.Sprintf("referee: {dir: engine/referee/examples/bankheist, language: python3, file: referee.py}\nsettings: {games_per_tournament: %d}\n", n), tournaments)
	if nres.Units != tournaments || rres.Units != tournaments || rres.Voided != 0 {
		t.Fatalf("native %d tournaments, referee %d (%d voided: %q)", nres.Units, rres.Units, rres.Voided, rres.Summary)
	}
	for _, h := range heisters {
		x, y := native[h[0]], refd[h[0]]
		mx, vx := meanVar(x)
		my, vy := meanVar(y)
		se := math.Sqrt(vx/float64(len(x)) + vy/float64(len(y)))
		z := math.Abs(mx-my) / math.Max(se, 1)
		t.Logf("%-16s native %10.1f ± %8.1f   referee %10.1f ± %8.1f   z %.2f", h[0], mx, math.Sqrt(vx), my, math.Sqrt(vy), z)
		if z > 4 {
			t.Errorf("%s: mean final credits %.1f natively, %.1f through the referee (z %.1f)", h[0], mx, my, z)
		}
	}
}

// The referee's resolution and payment give the credits of the spec's worked examples
// (each verified against the original controller with scripted draws): bank selection,
// straight wins and the rounding trap, all in, the collapse, double-crosses that succeed
// and fail, fingers that hit and miss, deposit, intel, guard, withdraw, and the arguments'
// float text (testdata/bankheist_rules.py, the referee's own Python with scripted draws).
func TestBankHeistRefereeWorkedExamples(t *testing.T) {
	out, err := exec.Command("python3", filepath.Join("testdata", "bankheist_rules.py"), filepath.Join("examples", "bankheist", "referee.py")).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Errorf("%v\n%s", err, out)
	}
}
