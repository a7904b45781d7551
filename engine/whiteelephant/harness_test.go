package whiteelephant

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/runner/protocol/pyclass"
	"github.com/kothd/kothd/runner/sandbox"
)

// Tests with the real harness (runner/protocol/pyclass/harness/whiteelephant.py) in real python3 processes.

const python = "/usr/bin/python3"

func pyConfig() pyclass.PyConfig {
	return pyclass.PyConfig{Harness: "whiteelephant", Python: python, CallTimeout: time.Second,
		StartTimeout: 10 * time.Second, MaxRestarts: 3}
}

// botDir writes an answer as bot.py beside an installed harness.
func botDir(t testing.TB, code string) string {
	t.Helper()
	dir := t.TempDir()
	if err := pyclass.InstallHarness(dir, Descriptor.Harness.Module, Descriptor.Harness.Source); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runPython runs a script with the harness directory importable, feeding it stdin.
func runPython(t *testing.T, script, stdin string) string {
	t.Helper()
	dir := botDir(t, "")
	cmd := exec.Command(python, "-c", script)
	cmd.Dir = filepath.Join(dir, pyclass.HarnessDir)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("python: %v\n%s", err, errb.String())
	}
	return out.String()
}

// The harness's Python side of spec §1.1–1.4 and §7.3–7.4.
func TestHarnessPythonRules(t *testing.T) {
	script := `
import sys, random
sys.path.insert(0, ".")
import whiteelephant as we

# §7.3 steal_targets, GreedyBot, RandomBot
presents = {"A": (0.9, 3), "B": (0.2, 0), "C": (0.8, 2)}
bot = we.WhiteElephantBot("Zed")
assert bot.name == "Zed"
assert bot.steal_targets(presents, "C") == ["B"], bot.steal_targets(presents, "C")
assert bot.steal_targets(presents, None) == ["B", "C"]
assert we.GreedyBot("g").take_turn([], presents, None) == "C"
assert we.GreedyBot("g").take_turn([], {"A": (0.5, 0), "B": (0.5, 0)}, None) == "A"  # first on ties
assert we.GreedyBot("g").take_turn([], {"A": (0.5, 3)}, None) is None
assert {we.RandomBot("r").take_turn([], presents, None) for _ in range(200)} == {None, "B", "C"}
assert we.NiceBot("n").take_turn([], presents, None) is None
# §7.1 call 10: Dave's present has 3 steals, Bob is just_stole
assert bot.steal_targets({"Alice": (0.3, 2), "Dave": (0.7, 3), "Bob": (0.5, 1)}, "Bob") == ["Alice"]

# §7.4 and §1.4: the driver's acceptance test, in Python
table = {"Alice": (0.3, 0)}
class Name(str): pass
class Weird(str):
    def __eq__(self, other): return str.__eq__(self.lower(), other.lower())
    def __hash__(self): return hash(self.lower().capitalize())
class Bad:
    def __bool__(self): raise RuntimeError("no truth")
for ans in ["alice", "Bob", "", 0, False, None, 1.5, "Nobody"]:
    assert we.accept(ans, table, None) is None, ans
for ans in [["Alice"], {"Alice"}, {"Alice": 1}, Bad()]:
    r = we.accept(ans, table, None)
    assert list(r) == ["p"] and "could not be tested" in r["p"], (ans, r)
two = {"Bob": (0.1, 1), "Alice": (0.3, 0)}
assert we.accept("Alice", two, None) == 1 and we.accept("Bob", two, None) == 0
assert we.accept("Alice", table, "Alice") is None
assert we.accept(Name("Alice"), two, None) == 1
assert we.accept(Weird("ALICE"), two, None) == 1

# The bot gets copies: mutating them changes nothing the harness tests against.
h = we.Handler(type("Mutator", (we.WhiteElephantBot,), {
    "take_turn": lambda self, players, presents, js: (presents.clear(), players.append("X"), "Alice")[2]}))
assert h.call(0, "turn", {"n": "Bob", "p": [], "v": [0.3], "t": ["Alice", 0, 0]}) == 0
h.call(0, "end", None)
try:
    h.call(0, "turn", {"p": 0, "t": []})
    raise AssertionError("a turn without an instance must fail")
except Exception as e:
    assert "no instance" in str(e)

# A constructor that raises fails the turn that makes the instance, and leaves none behind.
class Fragile(we.WhiteElephantBot):
    def __init__(self, name):
        raise ValueError("boom")
h = we.Handler(Fragile)
for a in ({"n": "Bob", "p": [], "t": []}, {"p": 0, "t": []}):
    try:
        h.call(0, "turn", a)
        raise AssertionError("the turn must fail")
    except ValueError as e:
        assert "boom" in str(e)
    except Exception as e:
        assert "no instance" in str(e) and "n" not in a, e

# presents arrive as a dict of (float, int) tuples in table order; values come once per
# round and are named by number after; the waiting players by their number after the first
# turn; a new round (a name) starts over
seen = []
h = we.Handler(type("Spy", (we.WhiteElephantBot,), {
    "take_turn": lambda self, players, presents, js: seen.append((self.name, players, presents, js))}))
h.call(1, "turn", {"n": "Carol", "p": ["Dave", "Eve"], "v": [0.5, 0.0], "t": ["Alice", 0, 0, "Bob", 1, 0]})
h.call(1, "turn", {"p": 1, "v": [0.7], "t": ["Bob", 1, 1, "Alice", 2, 0], "j": "Bob"})
h.call(1, "turn", {"p": 0, "t": ["Alice", 2, 0, "Bob", 0, 2]})
assert [s[0] for s in seen] == ["Carol"] * 3
assert [s[1] for s in seen] == [["Dave", "Eve"], ["Eve"], []]
assert [s[3] for s in seen] == [None, "Bob", None]
assert list(seen[0][2].items()) == [("Alice", (0.5, 0)), ("Bob", (0.0, 0))]
assert list(seen[1][2].items()) == [("Bob", (0.0, 1)), ("Alice", (0.7, 0))]
assert list(seen[2][2].items()) == [("Alice", (0.7, 0)), ("Bob", (0.5, 2))]
assert type(seen[1][2]["Bob"][0]) is float and type(seen[1][2]["Bob"][1]) is int
h.call(1, "turn", {"n": "Zoe", "p": [], "v": [0.25], "t": ["Ann", 0, 0]})
assert seen[3][0] == "Zoe" and list(seen[3][2].items()) == [("Ann", (0.25, 0))]
# the bot's players list is its own: changing it changes no later turn
h = we.Handler(type("Grabber", (we.WhiteElephantBot,), {
    "take_turn": lambda self, players, presents, js: (seen.append(list(players)), players.clear())[1]}))
h.call(2, "turn", {"n": "Carol", "p": ["Dave", "Eve"], "t": []})
h.call(2, "turn", {"p": 2, "t": []})
assert seen[-2:] == [["Dave", "Eve"], ["Dave", "Eve"]], seen

# the seed call seeds Python's random for that game (§3): the game's calls draw from
# random.Random(seed)'s stream, whatever other games draw in between
draws = []
h = we.Handler(type("Drawer", (we.WhiteElephantBot,), {
    "take_turn": lambda self, players, presents, js: draws.append(random.random())}))
for g in (2, 3):
    h.call(g, "seed", {"seed": 12345})
for k, g in enumerate((2, 3, 2, 3)):
    h.call(g, "turn", {"n": "Bob", "p": [], "t": []} if k < 2 else {"p": 0, "t": []})
r = random.Random(12345); want = [r.random(), r.random()]
assert draws == [want[0], want[0], want[1], want[1]], draws

# §1.3: only WhiteElephantBot is bound; white_elephant is the same class; every subclass
# competes, helpers included; imported built-ins are not the answer's.
ns = we.namespace()
assert set(ns) == {"WhiteElephantBot"}
before = set(ns)
exec("""
from white_elephant import WhiteElephantBot as W, GreedyBot
class Helper(W):
    pass
class Leaf(Helper):
    def take_turn(self, players, presents, just_stole): return None
class Better(GreedyBot):
    pass
Alias = Leaf
""", ns)
assert sys.modules["white_elephant"].WhiteElephantBot is we.WhiteElephantBot
assert [c.__name__ for c in we.competitors(ns, before)] == ["Helper", "Leaf", "Better"]
print("ok")
`
	if out := runPython(t, script, ""); strings.TrimSpace(out) != "ok" {
		t.Fatalf("python checks printed %q", out)
	}
}

// Spec §1.4: present values cross the boundary exactly. Go writes float64 as the shortest
// text that round-trips; Python's json parses it to the same double.
func TestValuesCrossExactly(t *testing.T) {
	values := []float64{0, 0.1, 0.3, 1e-7, 2.5e-8, 5e-324, math.SmallestNonzeroFloat64 * 3, 1 - 1.0/(1<<53), 0.5, 123456.789e-10}
	r := engine.NewRand(1)
	for range 2000 {
		values = append(values, r.Float64())
	}
	table := make([]present, len(values))
	for i := range values {
		table[i] = present{holder: fmt.Sprint("p", i), id: len(values) - 1 - i, value: values[len(values)-1-i], steals: i % 5}
	}
	table[1].holder = "Zoë \"q\"" // not a pool name: quoted by encoding/json
	msg, err := json.Marshal(turnArgs{Name: "Me", Players: []string{}, Values: values, Table: table})
	if err != nil {
		t.Fatal(err)
	}
	script := `
import sys, json, struct
sys.path.insert(0, ".")
import pyclass
sys.modules.setdefault("pyclass", pyclass)
import whiteelephant as we
seen = []
h = we.Handler(type("Spy", (we.WhiteElephantBot,), {
    "take_turn": lambda self, players, presents, js: seen.append(presents)}))
h.call(0, "turn", json.loads(sys.stdin.read()))
for name, (v, c) in seen[0].items():
    assert type(v) is float and type(c) is int
    print("%s %016x %d" % (name, struct.unpack("<Q", struct.pack("<d", v))[0], c))
`
	lines := strings.Split(strings.TrimSpace(runPython(t, script, string(msg))), "\n")
	if len(lines) != len(values) {
		t.Fatalf("%d values came back, want %d", len(lines), len(values))
	}
	for i := range values {
		if want := fmt.Sprintf("%s %016x %d", table[i].holder, math.Float64bits(table[i].value), i%5); lines[i] != want {
			t.Errorf("value %d (%v): python has %q, want %q", i, table[i].value, lines[i], want)
		}
	}
}

// The pyclass handshake: which classes of an answer compete (spec §1.3).
func TestListClasses(t *testing.T) {
	for _, tc := range []struct {
		name, code string
		want       []string
		err        string
	}{
		{"import line and helper base", "from white_elephant import WhiteElephantBot\nimport random\n\nclass Base(WhiteElephantBot):\n    def take_turn(self, players, presents, just_stole):\n        return None\n\nclass Child(Base):\n    pass\n", []string{"Base", "Child"}, ""},
		{"built-in subclass", "from white_elephant import GreedyBot\nclass Greedier(GreedyBot):\n    pass\n", []string{"Greedier"}, ""},
		{"main guard", "class M(WhiteElephantBot):\n    pass\nif __name__ == '__main__':\n    print(M('x'))\n", []string{"M"}, ""},
		{"no class", "x = 1\n", nil, ""},
		{"syntax error", "class P(WhiteElephantBot):\n    def take_turn(self, players, presents, just_stole):\n        print 'hi'\n", nil, "SyntaxError"},
		{"import error", "import numpy_not_here\nclass Q(WhiteElephantBot): pass\n", nil, "ModuleNotFoundError"},
		{"not pre-bound", "class R(Bot): pass\n", nil, "NameError"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := pyclass.ListClasses(t.Context(), sandbox.Unsandboxed{}, pyConfig(), botDir(t, tc.code))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, %v; want an error with %q", got, err, tc.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) && len(got)+len(tc.want) > 0 {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// testAnswer has one class for each way a bot can behave in a real game.
const testAnswer = `from white_elephant import WhiteElephantBot
import os
import time


class Picky(WhiteElephantBot):
    """Helper base class; competes too."""
    threshold = 0.8

    def take_turn(self, players, presents, just_stole):
        good = [t for t in self.steal_targets(presents, just_stole) if presents[t][0] >= self.threshold]
        return good[0] if good else None


class Bolder(Picky):
    threshold = 0.5


class Listy(WhiteElephantBot):
    def take_turn(self, players, presents, just_stole):
        presents.clear()
        return [players]  # unhashable: opens, counted as a fault


class Fragile(WhiteElephantBot):
    def take_turn(self, players, presents, just_stole):
        if not presents:
            raise ValueError("nothing to steal")
        return None


class Sleepy(WhiteElephantBot):
    def take_turn(self, players, presents, just_stole):
        if len(presents) >= 4:
            time.sleep(8)  # past the 5 s wall limit by more than the host could hold it from a CPU
        return None


class Quitter(WhiteElephantBot):
    calls = 0

    def take_turn(self, players, presents, just_stole):
        Quitter.calls += 1
        if Quitter.calls == 3:
            os._exit(3)
        return None
`

// realBots prepares the three built-ins and the test answer's classes.
func realBots(t testing.TB, answer string, classes []string) ([]engine.Bot, []engine.Entrant) {
	builtin := botDir(t, "")
	dir := botDir(t, answer)
	var bots []engine.Bot
	var ents []engine.Entrant
	for i, n := range append([]string{"RandomBot", "GreedyBot", "NiceBot"}, classes...) {
		d := dir
		if i < 3 {
			d = builtin
		}
		bots = append(bots, engine.Bot{Entrant: engine.Entrant{Name: n, Seed: engine.SubSeed(1, n)}, Dir: d})
		ents = append(ents, engine.Entrant{Name: n, Baseline: i < 3})
	}
	return bots, ents
}

func TestRealHarnessGame(t *testing.T) {
	// The C loop first, then the Python loop (below), whatever the environment says.
	t.Setenv(pyclass.FastEnv, "")
	classes, err := pyclass.ListClasses(t.Context(), sandbox.Unsandboxed{}, pyConfig(), botDir(t, testAnswer))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Picky", "Bolder", "Listy", "Fragile", "Sleepy", "Quitter"}; !reflect.DeepEqual(classes, want) {
		t.Fatalf("classes %q, want %q", classes, want)
	}
	bots, ents := realBots(t, testAnswer, classes)
	play := func() (*engine.Result, *pyclass.PyPool) {
		pool := pyclass.NewPyPool(sandbox.Unsandboxed{}, pyConfig(), bots)
		t.Cleanup(pool.Close)
		opts := Options{Seed: 11, WinningScore: 12, OnFault: func(bot int, f *engine.Fault, in any) { pool.Stats(bot).Record(f, in) }}
		res, err := Play(t.Context(), pool, ents, opts)
		if err != nil {
			t.Fatal(err)
		}
		return res, pool
	}
	res, pool := play()
	rows := map[string]engine.Row{}
	for _, r := range res.Rows {
		rows[r.Bot] = r
	}
	if len(rows) != 9 || res.Games != 1 || res.Rows[0].Score < 12 {
		t.Fatalf("result %+v", res)
	}
	for bot, want := range map[string]string{
		"Fragile": "yes: ValueError: nothing to steal",
		"Sleepy":  "yes: timeout: call exceeded 5s of wall time",
		"Listy":   "no",
		"Picky":   "no",
		"Quitter": "yes: process died: stdout closed (exit status 3)",
	} {
		if got := rows[bot].Cells[2]; !strings.HasPrefix(got, want) {
			t.Errorf("%s disqualified %q, want %q", bot, got, want)
		}
	}
	if rows["Listy"].Errors == 0 || pool.Stats(5).Faults() == 0 {
		t.Errorf("Listy's unhashable answers were not counted: row %+v", rows["Listy"])
	}
	if f := pool.Stats(6).First(); f == nil || !strings.Contains(f.Detail, "nothing to steal") {
		t.Errorf("Fragile's first fault %+v", f)
	}

	again, _ := play()
	if !reflect.DeepEqual(res, again) {
		t.Errorf("same seed, same bots, different tables:\n%+v\n%+v", res, again)
	}

	// The harness's Python loop (the C loop switched off: runner/protocol/pyclass/pyfast.go)
	// plays the same table as its C loop above.
	if loop := pyclass.FastHarness(pyConfig().Python, false); !strings.HasPrefix(loop, "C") {
		t.Fatalf("the C loop does not build on this host: %s", loop)
	}
	t.Setenv(pyclass.FastEnv, "off")
	if pure, _ := play(); !reflect.DeepEqual(res, pure) {
		t.Errorf("the C loop's and the Python loop's tables differ:\n%+v\n%+v", res, pure)
	}
}

// The sanity reference of spec §6: the three built-ins alone, a full game to 500.
func TestBaselinesSanity(t *testing.T) {
	bots, ents := realBots(t, "", nil)
	pool := pyclass.NewPyPool(sandbox.Unsandboxed{}, pyConfig(), bots)
	defer pool.Close()
	res, err := Play(t.Context(), pool, ents, Options{Seed: 2018})
	if err != nil {
		t.Fatal(err)
	}
	score := map[string]float64{}
	for _, r := range res.Rows {
		score[r.Bot] = r.Score
	}
	rounds := res.Rows[0].Cells[1]
	t.Logf("rounds %s, scores %v", rounds, score)
	if res.Rows[0].Bot != "GreedyBot" || score["GreedyBot"] < 500 || score["GreedyBot"] > 501 ||
		score["NiceBot"] < 390 || score["NiceBot"] > 470 || score["RandomBot"] < 375 || score["RandomBot"] > 455 {
		t.Errorf("scores %v after %s rounds; spec §6 expects GreedyBot ≈ 500.4, NiceBot ≈ 430, RandomBot ≈ 415", score, rounds)
	}
}
