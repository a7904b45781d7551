package whiteelephant

import (
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kothd/kothd/engine"
)

// answersInOrder scripts every bot with one shared list of answers, by call number.
func answersInOrder(f **fakeEx, answers []any) script {
	return func(v view) any {
		n := len((*f).turns) - 1
		if n >= len(answers) {
			return nil
		}
		return answers[n]
	}
}

// chainGame sets up spec §7.1: players Alice, Bob, Carol, Dave in turn order (bots 0–3),
// openings worth 0.30, 0.70, 0.50, 0.10.
func chainGame(answers []any) (*game, *fakeEx) {
	var f *fakeEx
	s := answersInOrder(&f, answers)
	f = newFake(s, s, s, s)
	d := &fixedDealer{list: []string{"Alice", "Bob", "Carol", "Dave"}, values: []float64{0.30, 0.70, 0.50, 0.10}}
	g := newGame(direct{ex: f}, d, entrants("W", "X", "Y", "Z"), seq(4), DefaultWinningScore)
	return g, f
}

func checkCalls(t *testing.T, f *fakeEx, want []string) {
	t.Helper()
	if len(f.turns) != len(want) {
		t.Errorf("%d calls, want %d", len(f.turns), len(want))
	}
	for i := range min(len(f.turns), len(want)) {
		if got := f.turns[i].String(); got != want[i] {
			t.Errorf("call %d:\n got %s\nwant %s", i+1, got, want[i])
		}
	}
}

func checkScores(t *testing.T, g *game, want ...float64) {
	t.Helper()
	if !slices.Equal(g.score, want) {
		t.Errorf("scores %v, want %v", g.score, want)
	}
}

var chainCalls = []string{
	"Alice [Bob Carol Dave] {} None",
	"Bob [Carol Dave] {Alice:(0.3,0)} None",
	"Alice [Carol Dave] {Bob:(0.3,1)} Bob",
	"Carol [Dave] {Bob:(0.3,1) Alice:(0.7,0)} None",
	"Alice [Dave] {Bob:(0.3,1) Carol:(0.7,1)} Carol",
	"Bob [Dave] {Carol:(0.7,1) Alice:(0.3,2)} Alice",
	"Carol [Dave] {Alice:(0.3,2) Bob:(0.7,2)} Bob",
	"Dave [] {Alice:(0.3,2) Bob:(0.7,2) Carol:(0.5,0)} None",
	"Bob [] {Alice:(0.3,2) Carol:(0.5,0) Dave:(0.7,3)} Dave",
	"Carol [] {Alice:(0.3,2) Dave:(0.7,3) Bob:(0.5,1)} Bob",
}

// Spec §7.1: a steal chain, the just_stole refusal, players and presents as passed.
func TestStealChain(t *testing.T) {
	g, f := chainGame([]any{nil, "Alice", "Bob", "Alice", "Bob", "Carol", nil, "Bob", "Carol", nil})
	g.round()
	checkCalls(t, f, chainCalls)
	checkScores(t, g, 0.3, 0.5, 0.1, 0.7)
	if g.played != 1 || !slices.Equal(g.rounds, []int{1, 1, 1, 1}) {
		t.Errorf("played %d rounds %v, want 1 and one each", g.played, g.rounds)
	}
	if !slices.Equal(g.faults, []int{0, 0, 0, 0}) {
		t.Errorf("faults %v: refusals are ordinary openings", g.faults)
	}
}

// Spec §7.2: the driver does not enforce the 3-steal limit.
func TestStealLimitNotEnforced(t *testing.T) {
	g, f := chainGame([]any{nil, "Alice", "Bob", "Alice", "Bob", "Carol", nil, "Bob", "Carol", "Dave", nil})
	g.round()
	want := append(slices.Clone(chainCalls), "Dave [] {Alice:(0.3,2) Bob:(0.5,1) Carol:(0.7,4)} Carol")
	checkCalls(t, f, want)
	checkScores(t, g, 0.3, 0.5, 0.7, 0.1)
}

// Spec §7.4, engine side: answers that name nobody stealable open without a fault; a
// policy case reported by the harness opens and counts a fault.
func TestInvalidAnswersOpen(t *testing.T) {
	for _, ans := range []any{"alice", "Bob", "", "Nobody", policy("answer ['Alice'] could not be tested")} {
		g, f := chainGame([]any{nil, ans, nil, nil, nil})
		var reported []string
		g.onFault = func(bot int, flt *engine.Fault, _ any) { reported = append(reported, g.bots[bot].Name+": "+flt.Detail) }
		g.round()
		checkCalls(t, f, []string{
			"Alice [Bob Carol Dave] {} None",
			"Bob [Carol Dave] {Alice:(0.3,0)} None",
			"Carol [Dave] {Alice:(0.3,0) Bob:(0.7,0)} None",
			"Dave [] {Alice:(0.3,0) Bob:(0.7,0) Carol:(0.5,0)} None",
		})
		checkScores(t, g, 0.3, 0.7, 0.5, 0.1)
		wantFaults := []int{0, 0, 0, 0}
		if _, ok := ans.(policy); ok {
			wantFaults[1] = 1
			if len(reported) != 1 || !strings.HasPrefix(reported[0], "X: answer ['Alice']") {
				t.Errorf("OnFault got %q", reported)
			}
		}
		if !slices.Equal(g.faults, wantFaults) {
			t.Errorf("answer %q: faults %v, want %v", ans, g.faults, wantFaults)
		}
	}
}

// Spec §7.6: bots that ignore steal counts pass two presents around; the safety valve ends
// the round after 100 × n steals.
func TestSafetyValve(t *testing.T) {
	// Always name the holder of the most valuable present, except just_stole.
	grab := func(v view) any {
		best := -1
		for i, e := range v.Presents {
			if e.Name != v.JustStole && (best < 0 || e.Value > v.Presents[best].Value) {
				best = i
			}
		}
		if best < 0 {
			return nil
		}
		return v.Presents[best].Name
	}
	f := newFake(grab, grab, grab, grab)
	d := &fixedDealer{list: []string{"Alice", "Bob", "Carol", "Dave"}, values: []float64{0.3, 0.7, 0.9, 0.1}}
	g := newGame(direct{ex: f}, d, entrants("A", "B", "C", "D"), seq(4), DefaultWinningScore)
	steals, opens := 0, 0
	g.trace = func(line string) {
		steals += strings.Count(line, " steals from ")
		opens += strings.Count(line, " opens a present ")
	}
	g.round()
	if steals != 401 || opens != 4 || g.played != 1 {
		t.Errorf("steals %d opens %d rounds %d; want 401, 4, 1", steals, opens, g.played)
	}
	var sum float64
	for _, s := range g.score {
		sum += s
	}
	if math.Abs(sum-2.0) > 1e-12 || d.drawn != 4 {
		t.Errorf("scores %v (sum %v) after %d draws; want the four values once each", g.score, sum, d.drawn)
	}
	if g.faults[0]+g.faults[1]+g.faults[2]+g.faults[3] != 0 {
		t.Errorf("faults %v: refused steals are openings, not faults", g.faults)
	}
}

// Spec §7.5 and §4: an exception disqualifies, the round is abandoned, nobody scores, the
// frozen score stays in the table.
func TestDisqualificationVoidsRound(t *testing.T) {
	boom := &engine.Fault{Outcome: engine.Crash, Detail: "Traceback (most recent call last):\n  File \"bot.py\", line 3\nValueError: boom"}
	for _, tc := range []struct {
		name   string
		ctor   bool // the constructor raises instead of take_turn
		fault  *engine.Fault
		reason string
	}{
		{"take_turn raises", false, boom, "ValueError: boom"},
		{"constructor raises", true, boom, "ValueError: boom"},
		{"timeout", false, &engine.Fault{Outcome: engine.Timeout, Detail: "call exceeded 1s"}, "timeout: call exceeded 1s"},
		{"process died", false, &engine.Fault{Outcome: engine.Killed, Detail: "signal: killed", ProcessDied: true}, "killed: signal: killed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			y := func(view) any { return tc.fault }
			f := newFake(nice, y)
			if tc.ctor {
				f.bots[1] = nice
				f.ctor[1] = tc.fault
			}
			d := &fixedDealer{list: []string{"Alice", "Bob"}, perm: []int{1, 0}, values: []float64{0.25}}
			g := newGame(direct{ex: f}, d, entrants("X", "Y"), seq(2), DefaultWinningScore)
			g.score = []float64{10, 12}
			g.round()
			checkScores(t, g, 10, 12)
			if g.dq[1] != tc.reason || g.dq[0] != "" || !slices.Equal(g.active, []int{0}) {
				t.Fatalf("dq %q active %v; want Y out with %q", g.dq, g.active, tc.reason)
			}
			if g.played != 0 || g.voided != 1 || g.faults[1] != 1 {
				t.Errorf("played %d voided %d faults %v", g.played, g.voided, g.faults)
			}
			f.turns = nil
			g.round()
			if len(f.turns) != 1 || f.turns[0].Bot != 0 || f.turns[0].String() != "Alice [] {} None" {
				t.Errorf("next round asked %v; want X alone", f.turns)
			}
			checkScores(t, g, 10.25, 12)
			res := tabulate(g.bots, seq(2), nil, []*game{g}, false, g.target)
			if res.Rows[0].Bot != "Y" || res.Rows[0].Cells[0] != "12.000" || res.Rows[0].Cells[2] != "yes: "+tc.reason {
				t.Errorf("row %+v; want Y's frozen 12.000 with the reason", res.Rows[0])
			}
		})
	}
}

// Spec §7.7 and §2.2: the win check before each round counts disqualified classes.
func TestWinCheck(t *testing.T) {
	f := newFake(greedy, nice)
	d := &fixedDealer{list: []string{"Alice", "Bob"}, values: []float64{0.7, 0.2}}
	g := newGame(direct{ex: f}, d, entrants("GreedyBot", "NiceBot"), seq(2), DefaultWinningScore)
	start, v := []float64{499.9, 430.0}, []float64{0.7, 0.2}
	g.score = slices.Clone(start)
	g.run(1)
	// Additions in double precision, one per round (spec §2.5): 499.9 + 0.7 is not 500.6.
	if g.played != 1 || g.score[0] != start[0]+v[0] || g.score[1] != start[1]+v[1] {
		t.Errorf("played %d scores %v; want one more round, 500.6 and 430.2", g.played, g.score)
	}
	if len(f.seeds) != 2 || f.seeds[0] == f.seeds[1] {
		t.Errorf("seeds %v; want one per class, distinct", f.seeds)
	}

	f = newFake(nice, nice, nice)
	g = newGame(direct{ex: f}, d, entrants("A", "B", "C"), seq(3), DefaultWinningScore)
	g.dq[2], g.score[2], g.active = "ValueError", 500.2, []int{0, 1}
	g.run(1)
	if g.played != 0 || len(f.turns) != 0 || g.winner() != 2 {
		t.Errorf("played %d, %d calls, winner %d; a disqualified 500.2 ends the game and wins", g.played, len(f.turns), g.winner())
	}
}

// Spec §4: when every competitor is disqualified the game ends and reports the table.
func TestAllDisqualified(t *testing.T) {
	raise := func(view) any { return &engine.Fault{Outcome: engine.Crash, Detail: "KeyError: 'x'"} }
	f := newFake(raise, raise)
	res, err := Play(t.Context(), f, entrants("A", "B"), Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.Games != 1 || len(res.Rows) != 2 {
		t.Fatalf("games %d rows %d", res.Games, len(res.Rows))
	}
	for _, r := range res.Rows {
		if r.Cells[2] != "yes: KeyError: 'x'" || r.Score != 0 || r.Errors != 1 {
			t.Errorf("row %+v", r)
		}
	}
}

// Policy: a host fault voids the game instead of scoring it.
func TestHostFaultVoidsGame(t *testing.T) {
	calls := 0
	flaky := func(v view) any {
		calls++
		if calls == 7 {
			return &engine.Fault{Outcome: engine.HostFault, Detail: "bwrap: cannot create namespace"}
		}
		return greedy(v)
	}
	res, err := Play(t.Context(), newFake(greedy, flaky, nice), entrants("A", "B", "C"), Options{Seed: 9, WinningScore: 20})
	if err != nil {
		t.Fatal(err)
	}
	if res.Games != 0 || res.Voided != 1 {
		t.Errorf("games %d voided %d; want the game voided", res.Games, res.Voided)
	}
	if !strings.Contains(strings.Join(res.Summary, "\n"), "bwrap: cannot create namespace") {
		t.Errorf("summary %q does not say why", res.Summary)
	}
	for _, r := range res.Rows {
		if r.Score != 0 || r.Played != 0 || r.Errors != 0 {
			t.Errorf("row %+v scored in a voided game", r)
		}
	}
}

// A turn's message as written without reflection is the JSON harness.py's Handler reads:
// what encoding/json writes for the same fields, with the waiting players as a list on the
// instance's first turn and as their number after it.
func TestTurnArgsJSON(t *testing.T) {
	odd := "Zoë \"<&>\""
	for _, c := range []struct {
		a    turnArgs
		want map[string]any
	}{
		{turnArgs{Players: []string{}}, map[string]any{"p": 0, "t": []any{}}},
		{turnArgs{Name: "Alice", Players: []string{"Bob", "Guest70"}, Values: []float64{0.1, 0, 0.30000000000000004},
			Table: []present{{"Carol", 0, 0.1, 0}, {"Dave", 2, 0.30000000000000004, 3}}, JustStole: &odd},
			map[string]any{"n": "Alice", "p": []string{"Bob", "Guest70"}, "v": []float64{0.1, 0, 0.30000000000000004},
				"t": []any{"Carol", 0, 0, "Dave", 2, 3}, "j": odd}},
		{turnArgs{Name: odd, Players: []string{odd}, Values: []float64{}, Table: []present{{odd, 1, 1e-7, 1}, {"Eve", 0, 0, 2}}},
			map[string]any{"n": odd, "p": []string{odd}, "t": []any{odd, 1, 1, "Eve", 0, 2}}},
		{turnArgs{Players: []string{"Bob", "Carol"}, Values: []float64{5e-324}, Table: []present{}, JustStole: &odd},
			map[string]any{"p": 2, "v": []float64{5e-324}, "t": []any{}, "j": odd}},
	} {
		got, err := json.Marshal(c.a)
		want, _ := json.Marshal(c.want)
		var g, w any
		if err != nil || json.Unmarshal(got, &g) != nil || json.Unmarshal(want, &w) != nil || !reflect.DeepEqual(g, w) {
			t.Errorf("wire %s (%v), want the fields of %s", got, err, want)
		}
	}
	// A value without a fraction still reads as a float in Python.
	if got, _ := json.Marshal(turnArgs{Players: []string{}, Values: []float64{0, 1, 0.5}}); !strings.Contains(string(got), `"v":[0.0,1.0,0.5]`) {
		t.Errorf("values written as %s", got)
	}
}
