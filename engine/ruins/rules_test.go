package ruins

import (
	"encoding/json"
	"math/big"
	"reflect"
	"testing"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/engine/pyrand"
)

// handGame returns a game with n adventurers in room 1 and the given room 1.
func handGame(t *testing.T, n int, room1 ...Treasure) *Game {
	t.Helper()
	seats := make([]Seat, n)
	for i := range seats {
		seats[i] = Seat{Class: "T", Bot: i}
	}
	g := NewGame(big.NewInt(1), seats)
	if len(g.Advs) != n {
		t.Fatalf("name clash in the hand-made game")
	}
	g.rooms[1] = room1
	return g
}

func tr(name string, value, weight int) Treasure { return Treasure{name, value, weight} }

func kg(w int) []Treasure { // items totalling w kg, 10 kg at most each
	var out []Treasure
	for w > 0 {
		x := min(w, 10)
		out = append(out, tr("x", 10, x))
		w -= x
	}
	return out
}

func acts(a ...Action) []Action { return a }

var next, prev = Action{Kind: Next}, Action{Kind: Previous}

func take(i, bid int) Action { return Action{Kind: Take, Index: i, Bid: bid} }
func dropA(i int) Action     { return Action{Kind: Drop, Index: i} }

// §7.1.
func TestMoveCosts(t *testing.T) {
	for carry, want := range map[int]int{0: 10, 1: 11, 3: 11, 5: 11, 6: 12, 47: 20, 50: 20} {
		if got := MoveCost(carry); got != want {
			t.Errorf("MoveCost(%d) = %d, want %d", carry, got, want)
		}
	}

	g := handGame(t, 1, tr("a", 5, 1))
	a := g.Advs[0]
	a.Stamina, a.Inventory = 15, kg(30)
	g.Turn(acts(next))
	if !a.Killed || a.Room != 1 || a.Stamina != 0 || len(a.Inventory) != 0 || len(g.Room(1)) != 4 {
		t.Errorf("15 stamina, 30 kg, next: killed %v room %d stamina %d carried %d, room 1 holds %d",
			a.Killed, a.Room, a.Stamina, len(a.Inventory), len(g.Room(1)))
	}

	g = handGame(t, 1, tr("a", 5, 1))
	a = g.Advs[0]
	a.Stamina, a.Inventory = 16, kg(30)
	g.Turn(acts(next))
	generated := g.RoomsGenerated() == 2
	if !a.Killed || a.Room != 2 || !generated || g.Room(2)[len(g.Room(2))-1].Weight != 10 {
		t.Errorf("16 stamina, 30 kg, next: killed %v room %d generated %v room 2 %v", a.Killed, a.Room, generated, g.Room(2))
	}

	g = handGame(t, 1, tr("a", 5, 1))
	a = g.Advs[0]
	a.Stamina, a.Inventory = 16, kg(30)
	g.Turn(acts(prev))
	if a.Killed || a.Room != 0 || a.Stamina != 0 || !a.Alive() || len(a.Inventory) != 3 || !g.Over() {
		t.Errorf("16 stamina, 30 kg, previous: killed %v room %d alive %v carried %d", a.Killed, a.Room, a.Alive(), len(a.Inventory))
	}
	if r := g.Ranking(); r[0].Points != 1 {
		t.Errorf("exited with treasure: %d points", r[0].Points)
	}
}

// §7.2: counts per room, and the ranges of weights and values.
func TestTreasureCounts(t *testing.T) {
	for room, want := range map[int][2]int{1: {3, 5}, 2: {3, 6}, 3: {4, 6}, 6: {5, 8}, 9: {6, 9}, 10: {6, 10}, 100: {36, 55}} {
		g := pyrand.NewUint64(uint64(room))
		lo, hi := 1000, 0
		made := 0
		for range 400 {
			ts := generateRoom(g, room, &made)
			lo, hi = min(lo, len(ts)), max(hi, len(ts))
			for _, x := range ts {
				if x.Weight < 1 || x.Weight > 10 || x.Value < 3 || x.Value > 10*x.Weight+2*(5*room+10) {
					t.Fatalf("room %d: treasure %v out of range", room, x)
				}
			}
		}
		if lo != want[0] || hi != want[1] {
			t.Errorf("room %d: counts %d–%d, want %d–%d", room, lo, hi, want[0], want[1])
		}
	}
}

// §7.3.
func TestBids(t *testing.T) {
	gem := tr("gem", 100, 4)
	cases := []struct {
		name    string
		bids    []Action
		stamina int
		winner  int // -1: nobody
		dead    []int
	}{
		{"12, 12, 9: nobody", acts(take(0, 12), take(0, 12), take(0, 9)), 1000, -1, nil},
		{"12, 15: the 15", acts(take(0, 12), take(0, 15)), 1000, 1, nil},
		{"15, 15, 20: the 20", acts(take(0, 15), take(0, 15), take(0, 20)), 1000, 2, nil},
		{"20, 15, 20: nobody", acts(take(0, 20), take(0, 15), take(0, 20)), 1000, -1, nil},
		{"the weight alone", acts(take(0, 4)), 1000, 0, nil},
		{"3 on 4 kg: too low", acts(take(0, 3)), 1000, -1, []int{0}},
		{"301 of 300: too high", acts(take(0, 301)), 300, -1, []int{0}},
		{"index out of range", acts(take(1, 5)), 1000, -1, []int{0}},
		{"index -2 out of range", acts(take(-2, 5)), 1000, -1, []int{0}},
	}
	for _, c := range cases {
		g := handGame(t, len(c.bids), gem)
		for _, a := range g.Advs {
			a.Stamina = c.stamina
		}
		g.Turn(c.bids)
		for i, a := range g.Advs {
			dead := false
			for _, d := range c.dead {
				dead = dead || d == i
			}
			if a.Killed != dead {
				t.Errorf("%s: adventurer %d killed = %v", c.name, i, a.Killed)
			}
			if !dead && a.Stamina != c.stamina-c.bids[i].Bid {
				t.Errorf("%s: adventurer %d has %d stamina, did not pay %d", c.name, i, a.Stamina, c.bids[i].Bid)
			}
			if has := len(a.Inventory) == 1; has != (i == c.winner) {
				t.Errorf("%s: adventurer %d holds %v", c.name, i, a.Inventory)
			}
		}
		if inRoom := len(g.Room(1)) == 1; inRoom != (c.winner < 0) {
			t.Errorf("%s: room holds %v", c.name, g.Room(1))
		}
	}

	// A bid of the whole stamina is legal: 0 stamina, the treasure won, but not alive.
	g := handGame(t, 2, gem)
	g.Advs[0].Stamina = 300
	g.Advs[1].Room = 0 // exited with nothing
	g.Turn(acts(take(0, 300), Action{}))
	a := g.Advs[0]
	if a.Killed || a.Stamina != 0 || len(a.Inventory) != 1 || a.Alive() || !g.Over() {
		t.Fatalf("all-in bid: killed %v stamina %d inventory %v", a.Killed, a.Stamina, a.Inventory)
	}
	// The exited adventurer with nothing is alive and ranks first; neither scores.
	if r := g.Ranking(); r[1].Adv != a || r[0].Points != 0 || r[1].Points != 0 {
		t.Errorf("all-in bidder ranks %+v", r)
	}

	// Too heavy: 45 kg carried, a 6 kg treasure.
	g = handGame(t, 1, tr("anvil", 50, 6))
	g.Advs[0].Inventory = kg(45)
	g.Turn(acts(take(0, 6)))
	if !g.Advs[0].Killed {
		t.Error("45 + 6 kg: not killed")
	}

	// Two indices for one treasure (2 and -1 of three) are one contest (policy).
	g = handGame(t, 2, tr("a", 1, 1), tr("b", 1, 1), tr("c", 9, 1))
	g.Turn(acts(take(2, 5), take(-1, 7)))
	if len(g.Advs[1].Inventory) != 1 || len(g.Advs[0].Inventory) != 0 || len(g.Room(1)) != 2 {
		t.Errorf("2 and -1: inventories %v / %v, room %v", g.Advs[0].Inventory, g.Advs[1].Inventory, g.Room(1))
	}
}

// §2.6 D–F: what is left in a room after takes, drops and deaths, in order.
func TestRoomOrderAndSpills(t *testing.T) {
	g := handGame(t, 4, tr("r0", 1, 1), tr("r1", 2, 1), tr("r2", 3, 1))
	g.Advs[0].Inventory = []Treasure{tr("d0", 10, 2), tr("d1", 11, 2)}
	g.Advs[2].Inventory = []Treasure{tr("k0", 20, 3), tr("k1", 21, 3)}
	g.Advs[3].Inventory = []Treasure{tr("e0", 30, 1)}
	g.Turn(acts(dropA(-1), take(1, 1), Action{Kind: Invalid}, dropA(0)))
	var names []string
	for _, x := range g.Room(1) {
		names = append(names, x.Name)
	}
	if want := []string{"r0", "r2", "d1", "e0", "k0", "k1"}; !reflect.DeepEqual(names, want) {
		t.Errorf("room 1 = %v, want %v", names, want)
	}
	if a := g.Advs[0]; a.Stamina != 999 || len(a.Inventory) != 1 || a.Inventory[0].Name != "d0" {
		t.Errorf("dropper: %d stamina, %v", a.Stamina, a.Inventory)
	}
	if a := g.Advs[2]; !a.Killed || a.Stamina != 0 || a.Inventory != nil {
		t.Errorf("trapped: %+v", a)
	}
	// Players lists everyone else in the room, dead or not, in seating order.
	s := g.State(1)
	if want := []string{g.Advs[0].Name, g.Advs[2].Name, g.Advs[3].Name}; !reflect.DeepEqual(s.Players, want) {
		t.Errorf("players %v, want %v", s.Players, want)
	}
	if s.CarryWeight() != 1 || s.TotalValue() != 2 {
		t.Errorf("state carry %d value %d", s.CarryWeight(), s.TotalValue())
	}

	// A bad drop index kills (the stamina point is spent anyway); a drop of the last point
	// leaves the adventurer inactive, not killed, holding the rest.
	g = handGame(t, 2)
	g.Advs[0].Inventory = kg(5)
	g.Advs[1].Inventory, g.Advs[1].Stamina = kg(15), 1
	g.Turn(acts(dropA(1), dropA(0)))
	// The room gets the drop first (D–E), then the dead one's spill (F).
	if room := g.Room(1); !g.Advs[0].Killed || len(room) != 2 || room[0].Weight != 10 || room[1].Weight != 5 {
		t.Errorf("bad drop: killed %v, room %v", g.Advs[0].Killed, g.Room(1))
	}
	if a := g.Advs[1]; a.Killed || a.Active() || a.Alive() || len(a.Inventory) != 1 {
		t.Errorf("last-point drop: %+v", a)
	}
}

// §7.7.
func TestRankingTies(t *testing.T) {
	g := handGame(t, 7)
	inv := [][]Treasure{
		{tr("a", 150, 10), tr("b", 150, 10)},                  // $300 20 kg, (150, 150)
		{tr("a", 300, 25)},                                    // $300 25 kg
		{tr("a", 100, 5), tr("b", 100, 10), tr("c", 100, 10)}, // $300 25 kg, 3 items
		{tr("a", 100, 10), tr("b", 200, 10)},                  // $300 20 kg, (200, 100)
		{tr("a", 900, 10)},                                    // $900 but not alive
		{tr("a", 10, 1)},                                      // $10
		{tr("a", 100, 10), tr("b", 200, 10)},                  // identical to seat 3
	}
	for i, a := range g.Advs {
		a.Inventory, a.Room = inv[i], 0
	}
	g.Advs[4].Room, g.Advs[4].Stamina = 3, 0
	var order, points []int
	for _, s := range g.Ranking() {
		order = append(order, s.Seat)
		points = append(points, s.Points)
	}
	if want := []int{3, 6, 0, 1, 2, 5, 4}; !reflect.DeepEqual(order, want) {
		t.Errorf("ranking %v, want %v", order, want)
	}
	if want := []int{7, 6, 5, 4, 3, 2, 0}; !reflect.DeepEqual(points, want) {
		t.Errorf("points %v, want %v", points, want)
	}
}

// §2.3 step 3: a generated namesake takes the earlier adventurer's seat.
func TestNameClash(t *testing.T) {
	seats := make([]Seat, 10)
	for i := range seats {
		seats[i] = Seat{Class: "C", Bot: i}
	}
	for seed := int64(1); seed < 5000; seed++ {
		g := NewGame(big.NewInt(seed), seats)
		if len(g.Left) == 0 {
			continue
		}
		left := g.Left[0]
		var clone *Adventurer
		pos := -1
		for i, a := range g.Advs {
			if a.Name == left.Name {
				clone, pos = a, i
			}
		}
		if len(g.Advs) != 9 || clone == nil || pos != left.Bot || clone.Bot <= left.Bot {
			t.Fatalf("seed %d: %d seated, %s (bot %d) replaced by bot %d at seat %d", seed, len(g.Advs), left.Name, left.Bot, clone.Bot, pos)
		}
		ex := newGoExchanger(make([]goBot, 10))
		for i := range ex.bots {
			ex.bots[i] = coward
		}
		ex.rec = true
		res := playOne(ex, seats, big.NewInt(seed), nil)
		for _, c := range ex.seen {
			if c.Bot == left.Bot {
				t.Errorf("the replaced bot %d was called: %+v", left.Bot, c)
			}
		}
		if len(res.Ranked) != 9 || len(res.Left) != 1 {
			t.Errorf("%d ranked, %d left", len(res.Ranked), len(res.Left))
		}
		return
	}
	t.Fatal("no name clash in 5000 games")
}

func TestParseAction(t *testing.T) {
	good := map[string]Action{
		`["next"]`:         {Kind: Next},
		`["previous"]`:     {Kind: Previous},
		`["take", -1, 12]`: {Kind: Take, Index: -1, Bid: 12},
		`["drop", 3]`:      {Kind: Drop, Index: 3},
		`["take",-1,12]`:   {Kind: Take, Index: -1, Bid: 12},
		`["drop",0]`:       {Kind: Drop, Index: 0},
	}
	for in, want := range good {
		if got, err := ParseAction(json.RawMessage(in)); err != nil || got != want {
			t.Errorf("ParseAction(%s) = %v, %v", in, got, err)
		}
	}
	for _, in := range []string{`"next"`, `[]`, `["take", 1]`, `["drop"]`, `["next", 1]`, `["take", "1", 2]`, `["take", 1.5, 2]`, `["jump"]`, `null`, `["next",]`, `["take",1,2,3]`, `["drop",1`} {
		if got, err := ParseAction(json.RawMessage(in)); err == nil {
			t.Errorf("ParseAction(%s) = %v, want an error", in, got)
		}
	}
}

func TestModuleName(t *testing.T) {
	for _, c := range [][3]string{
		{"Sleafar", "BountyHunter", "sleafar__bountyhunter"},
		{"Beefster", "Drunkard (sample)", "beefster__drunkard_"},
		{"Jane  Doe", "Plan Ahead", "jane_doe__plan_ahead"},
		{"2xsaiko", "Bot", "a__2xsaiko__bot"},
		{"Ørjan Johansen", "Fünf-Bot", "ørjan_johansen__fünf"},
		{"", "X", "a____x"},
		{" Lead Space", "T", "a___lead_space__t"},
	} {
		if got := ModuleName(c[0], c[1]); got != c[2] {
			t.Errorf("ModuleName(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}

// The original loaded answer modules (named <author>__<title>) in sorted name order;
// within an answer, classes keep their order.
func TestLoadingOrder(t *testing.T) {
	bots := []engine.Entrant{
		{Name: "Older", Author: "Tom", Heading: "Older"},
		{Name: "Second", Author: "anna", Heading: "Plan Ahead"},
		{Name: "First", Author: "anna", Heading: "Plan Ahead"}, // two classes of one answer
		{Name: "Notitle", Author: "zed"},                       // zed__notitle
		{Name: "Bounty", Author: "Sleafar", Heading: "Bounty Hunter"},
		// The module is named after the heading with its struck-out word (§1.4):
		// "Zed Alpha" gives sleafar__zed_alpha, after sleafar__bounty_hunter; without the
		// struck word it would be sleafar__alpha, before it.
		{Name: "Alpha", Author: "Sleafar", Heading: "Zed Alpha"},
	}
	got := LoadingOrder(bots)
	if want := []int{1, 2, 4, 5, 0, 3}; !reflect.DeepEqual(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}
