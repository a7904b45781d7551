package engine_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/engine/forty"
	"github.com/kothd/kothd/runner/protocol/pyclass"
	"github.com/kothd/kothd/runner/sandbox"
)

// oracleBot reads every number its sandbox shows it (its harness's seed, its command
// line, its environment) and reports them in an exception, whose text the runner keeps as
// the bot's first fault. The test then does with them what the bot could do itself: try
// each as the master seed, and undo the old derivation on each, and predict the dice.
const oracleBot = `
import os, re, sys
import pyclass

def _visible():
    texts = [repr(getattr(pyclass, "SEED", None)), repr(sys.argv), repr(dict(os.environ))]
    for p in ("/proc/self/cmdline", "/proc/self/environ", "/proc/1/cmdline", "/proc/self/stat"):
        try:
            with open(p, "rb") as f:
                texts.append(f.read().decode("latin-1"))
        except OSError:
            pass
    nums = set()
    for t in texts:
        for m in re.findall(r"\d{5,20}", t):
            if int(m) < 2 ** 64:
                nums.add(int(m))
    return sorted(nums)

class Oracle(Bot):
    def make_throw(self, scores, last_round):
        raise RuntimeError("VISIBLE " + " ".join(map(str, _visible())))
`

const honestBot = `
class %s(Bot):
    def make_throw(self, scores, last_round):
        while sum(self.current_throws) < %d:
            yield True
        yield False
`

func bwrapSandbox(t *testing.T) sandbox.Sandbox {
	t.Helper()
	if os.Getenv("KOTHD_NO_BWRAP") == "1" {
		t.Skip("KOTHD_NO_BWRAP=1: sandbox tests skipped on request")
	}
	sb, err := sandbox.NewSandbox("bwrap", slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return sb
}

var throwsRE = regexp.MustCompile(`throws \[([0-9 ]*)\]`)

// A bot in the real sandbox, in a real forty run, predicts the dice from everything it can
// read no better than chance (issue 10, item 1). The same attack against the first seed
// derivation recovered the master seed and predicted every die.
func TestBotCannotPredictDice(t *testing.T) {
	sb := bwrapSandbox(t)
	const master = uint64(0x1d0c0ffee5eed)
	root := t.TempDir()
	srcs := map[string]string{"Oracle": oracleBot}
	for name, target := range map[string]int{"GoTo15Bot": 15, "GoTo20Bot": 20, "GoTo25Bot": 25} {
		srcs[name] = strings.ReplaceAll(strings.ReplaceAll(honestBot, "%s", name), "%d", strconv.Itoa(target))
	}
	var bots []engine.Bot
	var entrants []engine.Entrant
	for _, name := range []string{"Oracle", "GoTo15Bot", "GoTo20Bot", "GoTo25Bot"} {
		dir := filepath.Join(root, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte(srcs[name]), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := pyclass.InstallHarness(dir, forty.Descriptor.Harness.Module, forty.Descriptor.Harness.Source); err != nil {
			t.Fatal(err)
		}
		// As cron/record.go seeds a run's bots.
		bots = append(bots, engine.Bot{Entrant: engine.Entrant{Name: name, Seed: engine.SubSeed(master, name)}, Dir: dir})
		entrants = append(entrants, engine.Entrant{Name: name})
	}
	cfg := pyclass.PyConfig{Harness: forty.Descriptor.Harness.Module, Python: "/usr/bin/python3", CallTimeout: 5 * time.Second, StartTimeout: 60 * time.Second, MaxRestarts: 3}
	pool := pyclass.NewPyPool(sb, cfg, bots)
	defer pool.Close()
	ctx := context.Background()
	const games = 6
	if _, err := forty.Run(ctx, pool, entrants, forty.Options{Games: games, Seed: master, Concurrency: games}); err != nil {
		t.Fatal(err)
	}
	first := pool.Stats(0).First()
	if first == nil || !strings.Contains(first.Detail, "VISIBLE") {
		t.Fatalf("the oracle reported nothing: %+v", first)
	}
	var candidates []uint64
	for _, f := range strings.Fields(first.Detail[strings.LastIndex(first.Detail, "VISIBLE")+len("VISIBLE"):]) {
		x, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			continue
		}
		candidates = append(candidates, x, engine.RecoverMasterOld(x, "Oracle"))
	}
	if !slicesContains(candidates, engine.SubSeed(master, "Oracle")) {
		t.Fatalf("the oracle did not see its own seed %d among %v: the test reads the wrong thing", engine.SubSeed(master, "Oracle"), candidates)
	}

	// The dice each game really threw, from the engine's own trace of a replay.
	actual := make([][]int, games)
	for g := range games {
		_, err := forty.Replay(ctx, pool, entrants, master, g, func(line string) {
			if m := throwsRE.FindStringSubmatch(line); m != nil {
				for _, d := range strings.Fields(m[1]) {
					v, _ := strconv.Atoi(d)
					actual[g] = append(actual[g], v)
				}
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	predict := func(seed uint64, g, n int) []int {
		r := engine.NewRand(engine.GameSeed(seed, g))
		forty.Seating(r, len(bots), forty.GroupSize(len(bots)))
		out := make([]int, n)
		for i := range out {
			out[i] = r.IntN(6) + 1
		}
		return out
	}
	rate := func(seed uint64) float64 {
		hit, n := 0, 0
		for g := range games {
			for i, d := range predict(seed, g, len(actual[g])) {
				if d == actual[g][i] {
					hit++
				}
				n++
			}
		}
		return float64(hit) / float64(n)
	}
	// The model of the engine's draws is right: knowing the master predicts every die.
	if r := rate(master); r != 1 {
		t.Fatalf("with the master seed the model predicts %.2f of the dice: it is not the engine's", r)
	}
	for _, c := range candidates {
		if c == master {
			t.Fatalf("the bot recovered the master seed %d from what it could read", master)
		}
		if r := rate(c); r > 0.3 {
			t.Errorf("candidate %d predicts %.2f of the dice; chance is 0.17", c, r)
		}
	}
}

func slicesContains(s []uint64, x uint64) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}
