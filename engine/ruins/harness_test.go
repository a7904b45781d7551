package ruins

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/engine/pyrand"
	"github.com/kothd/kothd/runner/protocol/pyclass"
	"github.com/kothd/kothd/runner/sandbox"
)

const python = "/usr/bin/python3"

// harnessBots is an answer module as the scraper saved it (the import line prepended),
// holding the author's test bots and probes for the harness's conversions.
const harnessBots = `from __main__ import Adventurer
import math


class EagerThief(Adventurer):
    def get_action(self, state):
        move_cost = 10 + int(math.ceil(state.carry_weight / 5))
        if state.stamina // move_cost <= state.room + 1:
            return 'previous'
        if state.treasures and state.carry_weight + state.treasures[0].weight < 50:
            return 'take', 0, state.treasures[0].weight + self.random.randrange(2 * len(state.players) + 1)
        return 'next'


class GreedyBastard(Adventurer):
    def get_action(self, state):
        if state.treasures:
            return 'take', 0, state.treasures[0].weight + 5
        return 'next'


class Chad(Adventurer):
    def get_action(self, state):
        return 'next'


class Probe(Adventurer):
    """Evaluates the expression it finds in state.players[0] and returns its value."""
    def get_action(self, state):
        print("bots cannot print")
        return eval(state.players[0], globals(), {"state": state, "self": self})


class Fragile(Adventurer):
    def enter_ruins(self):
        raise RuntimeError("not today")

    def get_action(self, state):
        return 'next'


class Lazy(Adventurer):
    pass


Alias = Chad
`

func needPython(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(python); err != nil {
		t.Skip("no " + python)
	}
}

// harnessPool hosts classes of harnessBots (or built-ins with an empty bot.py) through the
// real pyclass harness, one process each.
func harnessPool(t testing.TB, code string, classes ...string) *pyclass.PyPool {
	t.Helper()
	dir := t.TempDir()
	if err := pyclass.InstallHarness(dir, Descriptor.Harness.Module, Descriptor.Harness.Source); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	var bots []engine.Bot
	for i, c := range classes {
		bots = append(bots, engine.Bot{Entrant: engine.Entrant{Name: c, Seed: uint64(i)}, Dir: dir})
	}
	pool := pyclass.NewPyPool(sandbox.Unsandboxed{}, pyclass.PyConfig{Harness: "ruins", Python: python,
		CallTimeout: time.Second, StartTimeout: 10 * time.Second, MaxRestarts: 3}, bots)
	t.Cleanup(pool.Close)
	return pool
}

func TestHarnessClasses(t *testing.T) {
	needPython(t)
	dir := t.TempDir()
	if err := pyclass.InstallHarness(dir, Descriptor.Harness.Module, Descriptor.Harness.Source); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "bot.py"), []byte(harnessBots), 0o644)
	classes, err := pyclass.ListClasses(context.Background(), sandbox.Unsandboxed{}, pyclass.PyConfig{Harness: "ruins", Python: python, StartTimeout: 10 * time.Second}, dir)
	if err != nil {
		t.Fatal(err)
	}
	// Every Adventurer subclass in namespace order; the alias is the same name, left out.
	if want := []string{"EagerThief", "GreedyBastard", "Chad", "Probe", "Fragile", "Lazy"}; !reflect.DeepEqual(classes, want) {
		t.Errorf("classes %v, want %v", classes, want)
	}
}

// The harness's conversions of get_action's return value (§1.3, §4), the state it builds,
// and the environment the answer sees (§1.4).
func TestHarnessConversions(t *testing.T) {
	needPython(t)
	pool := harnessPool(t, harnessBots, "Probe")
	ctx := context.Background()
	state := State{Room: 3, Treasures: []Treasure{{"Treasure #004", 57, 6}, {"Treasure #005", 9, 2}},
		Inventory: []Treasure{{"Treasure #001", 32, 3}, {"Treasure #002", 39, 9}}, Stamina: 700}
	if r := pool.Exchange(ctx, []engine.Call{{Bot: 0, Game: 1, Method: "new", Args: newArgs{S: 2, Seed: "12345", Name: "Ken the Wizard"}}}); r[0].Fault != nil {
		t.Fatalf("new: %v", r[0].Fault)
	}
	cases := []struct{ expr, want string }{
		{`'next'`, `["next"]`},
		{`'previous'`, `["previous"]`},
		{`['take', 2, 15]`, `["take",2,15]`},
		{`('take', True, 12.9)`, `["take",1,12]`},
		{`('take', -1, '12')`, `["take",-1,12]`},
		{`('take', 0, ' 7 ')`, `["take",0,7]`},
		{`('take', 0, True)`, `["take",0,1]`},
		{`('take', 0, 10**30)`, `["take",0,1000000000]`},
		{`('take', __import__('numpy').int64(1), 7)`, `["take",1,7]`},
		{`iter(['take', 1, 4])`, `["take",1,4]`},
		{`('drop', '1')`, `["drop",1]`},
		{`('drop', 1.7)`, `["drop",1]`},
		{`['drop', -2]`, `["drop",-2]`},
		// Everything below is death by trap: the harness raises, the engine sees a fault.
		{`None`, ``}, {`5`, ``}, {`'take'`, ``}, {`'next '`, ``}, {`('take', 0)`, ``},
		{`('drop', 0, 1)`, ``}, {`{'take': 1}`, ``}, {`()`, ``}, {`[]`, ``}, {`''`, ``},
		{`('take', 0, 'abc')`, ``}, {`('take', 0, None)`, ``}, {`('take', 0, [3])`, ``},
		{`('take', 0, float('nan'))`, ``}, {`('take', 0, float('inf'))`, ``},
		{`('take', '0', 5)`, ``}, {`('take', 1.0, 5)`, ``}, {`('drop', '1.5')`, ``}, {`('drop', None)`, ``},
		{`__import__('numpy').array(['next'])`, `["next"]`}, // truthy, as in the original's action == 'next'
		{`__import__('numpy').array(['next', 'next'])`, ``},
		{`1 / 0`, ``},
		// The state and the environment.
		{`('take', state.carry_weight, state.total_value)`, `["take",12,71]`},
		{`'next' if str(state.treasures[0]) == 'Treasure #004 ($57, 6kg)' else 'previous'`, `["next"]`},
		{`'next' if state._fields == ('room', 'treasures', 'players', 'inventory', 'stamina') and type(state).__name__ == 'RoomState' else 'previous'`, `["next"]`},
		{`'next' if (state.room, state.stamina, state.players[1:]) == (3, 700, ['Emma Einstein DDS']) else 'previous'`, `["next"]`},
		{`'next' if str(state).splitlines()[:3] == ['Room #3', '  Treasures:', '    Treasure #004 ($57, 6kg)'] else 'previous'`, `["next"]`},
		{`'next' if [n for n in dir(__import__('__main__')) if not n.startswith('__')] == ['Adventurer'] else 'previous'`, `["next"]`},
		{`'next' if self.name == 'Ken the Wizard' and print(1) is None else 'previous'`, `["next"]`},
	}
	for _, c := range cases {
		st := state
		st.Players = []string{c.expr, "Emma Einstein DDS"}
		r := pool.Exchange(ctx, []engine.Call{{Bot: 0, Game: 1, Method: "act", Args: actArgs{S: 2, State: st}}})[0]
		switch {
		case c.want == "" && r.Fault == nil:
			t.Errorf("%s: answered %s, want a fault", c.expr, r.Result)
		case c.want != "" && r.Fault != nil:
			t.Errorf("%s: fault %v, want %s", c.expr, r.Fault, c.want)
		case c.want != "" && string(r.Result) != c.want:
			t.Errorf("%s: %s, want %s", c.expr, r.Result, c.want)
		case c.want == "" && (r.Fault.Outcome != engine.Crash || r.Fault.ProcessDied):
			t.Errorf("%s: fault %+v", c.expr, r.Fault)
		}
	}
	// A seat the process does not hold: the instance is lost.
	r := pool.Exchange(ctx, []engine.Call{{Bot: 0, Game: 1, Method: "act", Args: actArgs{S: 3, State: state}}})[0]
	if r.Fault == nil || !r.Fault.ProcessDied {
		t.Errorf("unknown seat: %+v", r)
	}
	if c := pool.Stats(0).Counts(); c[engine.OK] < 20 || c[engine.Crash] < 20 {
		t.Errorf("fault accounting %v", c)
	}
}

// A bot's self.random is random.Random(seed) for the decimal seed it is given: the same
// stream pyrand produces, which the Go Drunkard relies on.
func TestHarnessRandomStream(t *testing.T) {
	needPython(t)
	pool := harnessPool(t, harnessBots, "Probe")
	ctx := context.Background()
	seed := pyrand.NewUint64(7).GetRandBits(744)
	pool.Exchange(ctx, []engine.Call{{Bot: 0, Game: 4, Method: "new", Args: newArgs{S: 0, Seed: seed.String(), Name: "X"}}})
	want := pyrand.New(seed)
	for i := range 5 {
		st := State{Room: 1, Players: []string{`('take', 0, self.random.getrandbits(29))`}}
		r := pool.Exchange(ctx, []engine.Call{{Bot: 0, Game: 4, Method: "act", Args: actArgs{S: 0, State: st}}})[0]
		a, err := ParseAction(r.Result)
		if err != nil {
			t.Fatalf("draw %d: %v %v", i, r.Fault, err)
		}
		if w := int(want.Bits(29)); a.Bid != w {
			t.Errorf("draw %d: python %d, pyrand %d", i, a.Bid, w)
		}
	}
}

// A bot that draws from the module-level random (against the rules, but possible) draws
// from its seat's own stream: seats of interleaved games draw what each would alone.
func TestHarnessModuleRandom(t *testing.T) {
	needPython(t)
	pool := harnessPool(t, harnessBots, "Probe")
	ctx := context.Background()
	for _, g := range []int{6, 7} {
		pool.Exchange(ctx, []engine.Call{{Bot: 0, Game: g, Method: "new", Args: newArgs{S: 1, Seed: "5", Name: "X"}}})
	}
	want := pyrand.NewString("module random of 5")
	for i := range 3 {
		w := int(want.Bits(29))
		for _, g := range []int{6, 7} {
			st := State{Room: 1, Players: []string{`('take', 0, __import__('random').getrandbits(29))`}}
			r := pool.Exchange(ctx, []engine.Call{{Bot: 0, Game: g, Method: "act", Args: actArgs{S: 1, State: st}}})[0]
			a, err := ParseAction(r.Result)
			if err != nil || a.Bid != w {
				t.Errorf("draw %d of game %d: %d (%v %v), want %d", i, g, a.Bid, r.Fault, err, w)
			}
		}
	}
}

// A seat is sent a treasure whole once, then its number, and its bot gets the same object
// each time (as the original's rooms handed out theirs); another seat has its own numbers.
func TestHarnessTreasureNumbers(t *testing.T) {
	needPython(t)
	pool := harnessPool(t, harnessBots, "Probe")
	ctx := context.Background()
	for s := range 2 {
		if r := pool.Exchange(ctx, []engine.Call{{Bot: 0, Game: 5, Method: "new", Args: newArgs{S: s, Seed: "1", Name: "X"}}}); r[0].Fault != nil {
			t.Fatalf("new: %v", r[0].Fault)
		}
	}
	a, b := Treasure{"Treasure #001", 5, 1}, Treasure{"Treasure #002", 7, 2}
	seats := []*shown{{}, {}}
	ask := func(seat int, st State, expr, wire string) {
		t.Helper()
		st.Players = []string{expr}
		args := actArgs{S: seat, State: st, refs: seats[seat].refs(&st)}
		if raw, _ := json.Marshal(args); !strings.Contains(string(raw), wire) {
			t.Errorf("wire %s, want it to hold %s", raw, wire)
		}
		r := pool.Exchange(ctx, []engine.Call{{Bot: 0, Game: 5, Method: "act", Args: args}})[0]
		if r.Fault != nil || string(r.Result) != `["next"]` {
			t.Errorf("%s: %s %v", expr, r.Result, r.Fault)
		}
	}
	keep := `self.__dict__.setdefault('seen', list(state.treasures)) and 'next'`
	ask(0, State{Room: 1, Treasures: []Treasure{a, b}}, keep, `"treasures":[["Treasure #001",5,1],["Treasure #002",7,2]]`)
	ask(0, State{Room: 1, Treasures: []Treasure{b}, Inventory: []Treasure{a}},
		`'next' if state.treasures[0] is self.seen[1] and state.inventory == [self.seen[0]] and state.inventory[0] is self.seen[0] and str(state.inventory[0]) == 'Treasure #001 ($5, 1kg)' else 0`,
		`"treasures":[1],"players"`)
	ask(1, State{Room: 1, Treasures: []Treasure{b, a}}, `'next' if [t.name for t in state.treasures] == ['Treasure #002', 'Treasure #001'] else 0`,
		`"treasures":[["Treasure #002",7,2],["Treasure #001",5,1]]`)
}

// §7.5 with the real harness: Python EagerThief, GreedyBastard and Chad, Go Drunkards.
// Then the same game with the Drunkards hosted in Python (the harness's built-in), which
// must not change a thing; and a constructor that fails.
func TestHarnessWholeGame(t *testing.T) {
	needPython(t)
	// The C loop first, then the Python loop (below), whatever the environment says.
	t.Setenv(pyclass.FastEnv, "")
	want := strings.TrimSpace(`
Drunkard|Tyrion Rockbell|$542|9|46|34|5
EagerThief|Ken the Wizard|$509|11|49|22|4
Drunkard|Kent the Untamed|$449|9|45|35|3
GreedyBastard|Emma Einstein DDS|DEAD|0|0|0|0
Chad|Joffrey the Impaler|DEAD|0|0|0|0`)
	pool := harnessPool(t, harnessBots, "EagerThief", "GreedyBastard", "Chad", "Drunkard")
	seats := []Seat{{"EagerThief", 0}, {"GreedyBastard", 1}, {"Chad", 2}, {DrunkardClass, -1}, {DrunkardClass, -1}}
	if got := tableOf(playOne(pool, seats, big.NewInt(12345), nil)); got != want {
		t.Errorf("Go Drunkards:\n%s\nwant:\n%s", got, want)
	}
	seats[3].Bot, seats[4].Bot = 3, 3
	if got := tableOf(playOne(pool, seats, big.NewInt(12345), nil)); got != want {
		t.Errorf("Python Drunkards:\n%s\nwant:\n%s", got, want)
	}
	// The same with the harness's Python loop (its C loop switched off: runner/protocol/
	// pyclass/pyfast.go), which must play the same table.
	if loop := pyclass.FastHarness(python, false); !strings.HasPrefix(loop, "C") {
		t.Fatalf("the C loop does not build on this host: %s", loop)
	}
	t.Setenv(pyclass.FastEnv, "off")
	if got := tableOf(playOne(harnessPool(t, harnessBots, "EagerThief", "GreedyBastard", "Chad", "Drunkard"), seats, big.NewInt(12345), nil)); got != want {
		t.Errorf("Python Drunkards, the harness's Python loop:\n%s\nwant:\n%s", got, want)
	}
	t.Setenv(pyclass.FastEnv, "on")

	// Fragile raises in enter_ruins: dead on arrival, never asked to act. Lazy has no
	// get_action: NotImplementedError, death by trap on its first turn.
	frag := harnessPool(t, harnessBots, "Fragile", "Lazy", "Chad")
	res := playOne(frag, []Seat{{"Chad", 2}, {"Fragile", 0}, {"Lazy", 1}}, big.NewInt(3), nil)
	if res.Voided || len(res.Ranked) != 3 || res.Faults[0] != 1 || res.Faults[1] != 1 || res.Faults[2] != 0 {
		t.Fatalf("game with Fragile and Lazy: %+v", res)
	}
	for _, s := range res.Ranked {
		if s.Adv.Class != "Chad" && (s.Adv.Alive() || s.Adv.Room != 1 || !s.Adv.Killed) {
			t.Errorf("%s survived: %+v", s.Adv.Class, s.Adv)
		}
	}
	if c := frag.Stats(0).Counts(); c[engine.Crash] != 1 || c[engine.OK] != 1 { // new failed, end ok
		t.Errorf("Fragile's calls: %v", c)
	}
	if c := frag.Stats(1).Counts(); c[engine.Crash] != 1 {
		t.Errorf("Lazy's calls: %v", c)
	}
	if f := frag.Stats(1).First(); f == nil || !strings.Contains(f.Detail, "NotImplementedError") {
		t.Errorf("Lazy's first fault: %+v", f)
	}
}

// BenchmarkPlay measures whole tournaments through real harness processes: ten Python
// bots, no pool, 32 final games per iteration (the stopping lead is out of reach).
func BenchmarkPlay(b *testing.B) {
	needPython(b)
	classes := []string{"EagerThief", "EagerThief", "EagerThief", "GreedyBastard", "Chad", "EagerThief", "EagerThief", "Drunkard", "Drunkard", "EagerThief"}
	pool := harnessPool(b, harnessBots, classes...)
	bots := make([]engine.Entrant, len(classes))
	for i, c := range classes {
		bots[i] = engine.Entrant{Name: c + string(rune('A'+i))}
	}
	const games = 32
	ctx := context.Background()
	start := time.Now()
	n := 0
	for b.Loop() {
		res, err := Play(ctx, pool, bots, Options{SeedString: "BENCH" + string(rune('A'+n%26)), MaxFinals: games, Lead: 100000, Concurrency: 32})
		if err != nil || res.Games != games {
			b.Fatalf("%v, %d games", err, res.Games)
		}
		n++
	}
	b.ReportMetric(float64(n*games)/time.Since(start).Seconds(), "games/s")
}

// The state as JSON is what the harness reads: lists, treasures as [name, value, weight].
func TestWireFormat(t *testing.T) {
	b, err := json.Marshal(actArgs{S: 1, State: State{Room: 2, Treasures: []Treasure{{"Treasure #001", 5, 1}}, Players: []string{}, Inventory: []Treasure{}, Stamina: 9}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"s":1,"room":2,"treasures":[["Treasure #001",5,1]],"players":[],"inventory":[],"stamina":9}`
	if string(b) != want {
		t.Errorf("wire %s, want %s", b, want)
	}
	// Names outside plain ASCII still make valid JSON.
	odd := State{Treasures: []Treasure{{`Tréasure "#1" \ <b>`, 1, 1}}, Players: []string{"Zoë\n"}}
	b, _ = json.Marshal(actArgs{State: odd})
	var back wireArgs
	err = json.Unmarshal(b, &back)
	if err == nil {
		err = back.resolve(new([]Treasure))
	}
	if err != nil || back.Treasures[0] != odd.Treasures[0] || back.Players[0] != odd.Players[0] {
		t.Errorf("round trip of %s: %v %+v", b, err, back)
	}
	// Numbered: a treasure shown before travels as its number.
	sh := &shown{}
	st := State{Treasures: []Treasure{{"Treasure #001", 5, 1}, {"Treasure #002", 6, 2}}}
	sh.refs(&st)
	st = State{Treasures: []Treasure{{"Treasure #003", 7, 3}, {"Treasure #002", 6, 2}}, Inventory: []Treasure{{"Treasure #001", 5, 1}}}
	b, _ = json.Marshal(actArgs{State: st, refs: sh.refs(&st)})
	if want := `{"s":0,"room":0,"treasures":[["Treasure #003",7,3],1],"players":[],"inventory":[0],"stamina":0}`; string(b) != want {
		t.Errorf("wire %s, want %s", b, want)
	}
	// Names the dungeon does not make, and a second treasure under a shown one's name, are
	// numbered too (hand-made games).
	st = State{Treasures: []Treasure{{"Gold", 1, 1}, {"Treasure #001", 9, 9}, {"Gold", 1, 1}, {"Treasure #001", 5, 1}}}
	if got, want := fmt.Sprint(sh.refs(&st)), "[-1 -1 3 0]"; got != want {
		t.Errorf("refs %s, want %s", got, want)
	}
}

// The runner writes new and end calls with their own AppendJSON: it must be what
// encoding/json makes of their fields.
func TestArgsAppendJSON(t *testing.T) {
	for _, a := range []interface {
		AppendJSON([]byte) []byte
	}{
		newArgs{S: 3, Seed: "123456789012345678901234567890", Name: "Ken the Wizard"},
		newArgs{S: 0, Seed: "0", Name: `Zoë "<the>" \ odd` + "\n"},
		endArgs{S: 7},
	} {
		want, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.AppendJSON(nil); string(got) != string(want) {
			t.Errorf("AppendJSON %s, encoding/json %s", got, want)
		}
	}
}
