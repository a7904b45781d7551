package ruins

import (
	"context"
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/engine/pyrand"
)

// §5.1: every bot plays exactly 20 pool games, in games of 10 distinct bots.
func TestPoolDealing(t *testing.T) {
	for b := 11; b <= 40; b++ {
		bots := make([]Seat, b)
		for i := range bots {
			bots[i] = Seat{Class: fmt.Sprint(i), Bot: i}
		}
		games := dealPool(pyrand.NewString(fmt.Sprint("seed", b)), bots, 10, 20)
		if len(games) != 2*b {
			t.Errorf("%d bots: %d games, want %d", b, len(games), 2*b)
		}
		count := make([]int, b)
		for k, g := range games {
			seen := map[int]bool{}
			for _, s := range g.seats {
				if seen[s.Bot] {
					t.Errorf("%d bots: game %d seats bot %d twice", b, k, s.Bot)
				}
				seen[s.Bot] = true
				count[s.Bot]++
			}
			if len(g.seats) != 10 || g.seed.BitLen() < 1300 {
				t.Errorf("%d bots: game %d has %d seats, seed of %d bits", b, k, len(g.seats), g.seed.BitLen())
			}
		}
		for i, c := range count {
			if c != 20 {
				t.Errorf("%d bots: bot %d plays %d games", b, i, c)
			}
		}
	}
}

func TestSeedString(t *testing.T) {
	a, b := SeedString(1), SeedString(2)
	if len(a) != 13 || a == b || a != SeedString(1) || strings.Trim(a, seedAlphabet) != "" {
		t.Errorf("SeedString: %q, %q", a, b)
	}
}

// Same seed and bots: the same table, whatever the concurrency; another seed: another table.
func TestDeterminism(t *testing.T) {
	bots, fns := testBots()
	bots, fns = bots[:11], fns[:11] // a pool phase with a leftover-carrying deal
	lead := 0                       // the default
	play := func(seed string, conc int) *engine.Result {
		ex := newGoExchanger(fns)
		ex.direct = true
		res, err := Play(context.Background(), ex, bots, Options{SeedString: seed, Concurrency: conc, PoolGames: 4, MaxFinals: 40, Lead: lead})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b, c := play("ABCDEFGH", 8), play("ABCDEFGH", 8), play("ABCDEFGH", 3)
	if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(a, c) {
		t.Errorf("same seed, different tables:\n%s\n--\n%s\n--\n%s", rowsOf(a), rowsOf(b), rowsOf(c))
	}
	// The finals stop on the lead with games in flight after the stopping one: one at a
	// time or all at once, the same games count.
	lead = 10
	l8 := play("ABCDEFGH", 8)
	if !strings.Contains(strings.Join(l8.Summary, " "), "leads by") {
		t.Errorf("the finals did not stop on the lead: %q", l8.Summary)
	}
	// The finals after the stopping one are named, so their decisions are not charged.
	if n := len(l8.Discarded); n == 0 || l8.Discarded[n-1] != l8.Games+l8.Voided+n-1 {
		t.Errorf("%d games counted, discarded %v: want every later final up to the limit", l8.Games+l8.Voided, l8.Discarded)
	}
	if one, all := play("ABCDEFGH", 1), play("ABCDEFGH", 40); !reflect.DeepEqual(l8, one) || !reflect.DeepEqual(l8, all) {
		t.Errorf("concurrency 1 or 40 changed the table:\n%s\n--\n%s\n--\n%s", rowsOf(l8), rowsOf(one), rowsOf(all))
	}
	if d := play("HGFEDCBA", 8); reflect.DeepEqual(rowsOf(a), rowsOf(d)) {
		t.Errorf("another seed, same table:\n%s", rowsOf(a))
	}
	if len(a.Columns) != 4 || a.Appendix == "" || a.Games == 0 {
		t.Errorf("columns %v, appendix %q, games %d", a.Columns, a.Appendix, a.Games)
	}
}

// §4 and the policy: a fault kills by trap and is counted; a constructor that fails means
// dead on arrival; a dead process loses the instance; a host fault voids the game.
func TestFaults(t *testing.T) {
	seats := []Seat{{"A", 0}, {"B", 1}, {"C", 2}, {"D", 3}}
	seed := big.NewInt(99)
	turn := 0
	ex := newGoExchanger([]goBot{eagerThief, eagerThief, eagerThief, eagerThief})
	ex.rec = true
	ex.hook = func(c engine.Call) *engine.Reply {
		switch {
		case c.Bot == 1 && c.Method == "new": // the constructor raises
			return &engine.Reply{Fault: &engine.Fault{Outcome: engine.Crash, Detail: "ZeroDivisionError"}}
		case c.Bot == 2 && c.Method == "act": // raises in get_action, process fine
			turn++
			if turn == 3 {
				return &engine.Reply{Fault: &engine.Fault{Outcome: engine.Crash, Detail: "KeyError"}}
			}
		case c.Bot == 3 && c.Method == "act": // the process dies on the first turn
			return &engine.Reply{Fault: &engine.Fault{Outcome: engine.Killed, Detail: "SIGKILL", ProcessDied: true}}
		}
		return nil
	}
	res := playOne(ex, seats, seed, nil)
	if res.Voided || res.Faults[1] != 1 || res.Faults[2] != 1 || res.Faults[3] != 1 || res.Faults[0] != 0 {
		t.Fatalf("voided %v, faults %v", res.Voided, res.Faults)
	}
	var ends []int
	for _, c := range ex.seen {
		if c.Method == "act" && c.Bot == 1 {
			t.Errorf("a bot dead on arrival was asked to act")
		}
		if c.Method == "end" {
			ends = append(ends, c.Bot)
		}
	}
	if !reflect.DeepEqual(ends, []int{0, 1, 2}) { // the dead process's instance is gone already
		t.Errorf("end calls to %v", ends)
	}
	for _, s := range res.Ranked {
		if s.Adv.Bot != 0 && (s.Adv.Alive() || s.Points != 0) {
			t.Errorf("bot %d survived a fault: %+v", s.Adv.Bot, s.Adv)
		}
		if s.Adv.Bot == 1 && s.Adv.Room != 1 {
			t.Errorf("dead on arrival, but in room %d", s.Adv.Room)
		}
	}

	// A host fault voids the game, in a tournament too: the run goes on without it.
	ex = newGoExchanger([]goBot{eagerThief, chad})
	calls := 0
	ex.hook = func(c engine.Call) *engine.Reply {
		if c.Method == "act" && c.Game == 0 {
			calls++
			if calls == 5 {
				return &engine.Reply{Fault: &engine.Fault{Outcome: engine.HostFault, Detail: "bwrap failed"}}
			}
		}
		return nil
	}
	out, err := Play(context.Background(), ex, []engine.Entrant{{Name: "A"}, {Name: "B"}}, Options{SeedString: "X", MaxFinals: 6, Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	if out.Voided != 1 || out.Games != 5 || !strings.Contains(strings.Join(out.Summary, "\n"), "1 games voided") {
		t.Errorf("voided %d, games %d, summary %q", out.Voided, out.Games, out.Summary)
	}
	if out.Rows[0].Cells[2] != "5" {
		t.Errorf("final games shown: %v", out.Rows[0].Cells)
	}
}

// A cancelled run ends with the context's error, not a half table.
func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	bots, fns := testBots()
	_, err := Play(ctx, cancelled{newGoExchanger(fns)}, bots, Options{SeedString: "X"})
	if err == nil {
		t.Fatal("no error from a cancelled run")
	}
}

// cancelled answers like the runner does once the context is done.
type cancelled struct{ *goExchanger }

func (c cancelled) Exchange(ctx context.Context, calls []engine.Call) []engine.Reply {
	if ctx.Err() != nil {
		out := make([]engine.Reply, len(calls))
		for i := range out {
			out[i] = engine.Reply{Fault: &engine.Fault{Outcome: engine.HostFault, Detail: "run cancelled"}}
		}
		return out
	}
	return c.goExchanger.Exchange(ctx, calls)
}

func BenchmarkGameGo(b *testing.B) {
	fns := []goBot{eagerThief, greedyBastard, chad, eagerThief, eagerThief, eagerThief, coward, eagerThief, eagerThief, eagerThief}
	seats := make([]Seat, 10)
	for i := range seats {
		seats[i] = Seat{Class: fmt.Sprint(i), Bot: i}
	}
	seats[9] = Seat{Class: DrunkardClass, Bot: -1}
	ex := newGoExchanger(fns)
	ex.direct = true
	for i := 0; b.Loop(); i++ {
		playOne(ex, seats, big.NewInt(int64(i)), nil)
	}
}

// One bot and nine Drunkards: the finals stop after the first game (engine addition, §5.1).
func TestSingleBot(t *testing.T) {
	ex := newGoExchanger([]goBot{eagerThief})
	res, err := Play(context.Background(), ex, []engine.Entrant{{Name: "Solo"}}, Options{SeedString: "ONE"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Games != 1 || len(res.Rows) != 1 || res.Rows[0].Cells[2] != "1" {
		t.Errorf("%d games, rows %+v", res.Games, res.Rows)
	}
	if s := strings.Join(res.Summary, "\n"); !strings.Contains(s, "Filled up with 9 Drunkards") || !strings.Contains(s, "one game only") {
		t.Errorf("summary %q", s)
	}
	// No bots at all: an empty table, not an error.
	if res, err := Play(context.Background(), ex, nil, Options{SeedString: "ONE"}); err != nil || res.Games != 0 {
		t.Errorf("no bots: %v %+v", err, res)
	}
}
