package ruins

import (
	"fmt"
	"math/big"
	"slices"
	"sort"

	"github.com/kothd/kothd/engine/pyrand"
)

// Seat is one place at a game's table before names are drawn.
type Seat struct {
	Class string // class name, e.g. "Drunkard"
	Bot   int    // index into the tournament's bots; -1 for the built-in Drunkard
}

// Adventurer is one seated player.
type Adventurer struct {
	Seat
	Name      string   // character name, e.g. "Ken the Wizard"
	Seed      *big.Int // seed of the bot's own random.Random (744 bits from G)
	Room      int      // 0 = exited
	Stamina   int
	Inventory []Treasure // in the order acquired
	Killed    bool       // died (trap, exhaustion, doorway, dead on arrival)
}

// Active adventurers still take turns.
func (a *Adventurer) Active() bool { return a.Stamina > 0 && a.Room > 0 }

// Alive adventurers can score: those with stamina left and those who exited.
func (a *Adventurer) Alive() bool { return a.Stamina > 0 || a.Room == 0 }

func (a *Adventurer) String() string { return fmt.Sprintf("%s (%s)", a.Name, a.Class) }

// Game is one game's state (§2).
type Game struct {
	G, F  *pyrand.Rand
	Advs  []*Adventurer // seating order
	Left  []*Adventurer // seated, then replaced by a namesake (§2.3 step 3); they never act
	Turns int
	rooms [][]Treasure // rooms[r] for generated rooms r >= 1; rooms[0] is the exit
	made  int          // treasures generated so far, for their names
	// Log, when set, receives the original's game log lines (§2.8), and trap texts are drawn
	// from F for it. Neither changes the game.
	Log func(string)
}

// NewGame seats the classes in order with the game seed (§2.3): G from the seed, F from
// G.getrandbits(420), per seat a name from F and a bot seed G.getrandbits(744), then room 1.
// A bot thus sees 744 bits of G's output, the dungeon's generator: far fewer than the
// 19,937 a Mersenne Twister's state needs, even pooled by a whole table; G's 1,337-bit seed
// is drawn by a generator seeded one-way from the run's seed (docs/trust.md).
func NewGame(seed *big.Int, seats []Seat) *Game {
	g := &Game{G: pyrand.New(seed)}
	g.F = pyrand.New(g.G.GetRandBits(420))
	for _, s := range seats {
		a := &Adventurer{Seat: s, Name: characterName(g.F), Seed: g.G.GetRandBits(744), Room: 1, Stamina: StartStamina}
		if j := slices.IndexFunc(g.Advs, func(b *Adventurer) bool { return b.Name == a.Name }); j >= 0 {
			// The original kept adventurers in a dict by name: the newcomer takes the
			// earlier one's place and the earlier one is gone.
			g.Left = append(g.Left, g.Advs[j])
			g.Advs[j] = a
			continue
		}
		g.Advs = append(g.Advs, a)
	}
	g.rooms = [][]Treasure{nil, generateRoom(g.G, 1, &g.made)}
	return g
}

// Room returns the treasures lying in room r (generated rooms only).
func (g *Game) Room(r int) []Treasure {
	if r <= 0 || r >= len(g.rooms) {
		return nil
	}
	return g.rooms[r]
}

// RoomsGenerated is the number of rooms generated so far.
func (g *Game) RoomsGenerated() int { return len(g.rooms) - 1 }

// Over reports whether no adventurer is active.
func (g *Game) Over() bool {
	for _, a := range g.Advs {
		if a.Active() {
			return false
		}
	}
	return true
}

// State builds seat i's view of the game (§1.2).
func (g *Game) State(i int) State {
	s := g.view(i)
	s.Treasures = slices.Clone(s.Treasures)
	s.Inventory = slices.Clone(s.Inventory)
	return s
}

// view is State(i) whose Treasures and Inventory are the game's own lists, not copies:
// for a call that is encoded before the game moves on (playGame waits for the replies
// before the next Turn), so that a decision does not cost two copies.
func (g *Game) view(i int) State {
	a := g.Advs[i]
	s := State{
		Room:      a.Room,
		Treasures: g.Room(a.Room),
		Players:   make([]string, 0, max(len(g.Advs)-1, 0)),
		Inventory: a.Inventory,
		Stamina:   a.Stamina,
	}
	if s.Treasures == nil {
		s.Treasures = []Treasure{}
	}
	if s.Inventory == nil {
		s.Inventory = []Treasure{}
	}
	for j, b := range g.Advs {
		if j != i && b.Room == a.Room && a.Room > 0 {
			s.Players = append(s.Players, b.Name)
		}
	}
	return s
}

// DeadOnArrival kills seat i before the first turn: its constructor or enter_ruins raised.
func (g *Game) DeadOnArrival(i int) {
	a := g.Advs[i]
	g.logf("%s is dead on arrival.", a)
	g.kill(a)
}

func (g *Game) kill(a *Adventurer) {
	a.Stamina = 0
	a.Killed = true
	if a.Room > 0 {
		g.rooms[a.Room] = append(g.rooms[a.Room], a.Inventory...)
	}
	a.Inventory = nil
}

func (g *Game) logf(format string, args ...any) {
	if g.Log != nil {
		g.Log(fmt.Sprintf(format, args...))
	}
}

// trap draws a trap text from F, only when the log is kept.
func (g *Game) trap() string {
	if g.Log == nil {
		return ""
	}
	return traps[g.F.Below(len(traps))]
}

type bid struct{ adv, amount int }

type contest struct {
	room, idx int
	bids      []bid
}

type drop struct {
	room int
	t    Treasure
}

// Turn plays one turn (§2.6 B–F) with the decisions collected in phase A: actions[i] is
// seat i's; the entries of inactive seats are ignored.
func (g *Game) Turn(actions []Action) {
	var contests []contest
	var drops []drop
	var dying []*Adventurer
	die := func(a *Adventurer, format string, args ...any) {
		g.logf("%s "+format, append([]any{a}, args...)...)
		dying = append(dying, a)
	}
	for i, a := range g.Advs {
		if !a.Active() {
			continue
		}
		act := actions[i]
		switch act.Kind {
		case Next, Previous:
			cost := MoveCost(weight(a.Inventory))
			if a.Stamina < cost {
				die(a, "died of exhaustion")
				continue
			}
			if act.Kind == Next {
				a.Room++
			} else {
				a.Room--
			}
			a.Stamina -= cost
			if a.Room >= len(g.rooms) {
				g.rooms = append(g.rooms, generateRoom(g.G, a.Room, &g.made))
			}
			switch {
			case a.Room == 0:
				g.logf("%s exited the ruins with %d stamina and %d treasures, totaling $%d in value, and %dkg in weight.",
					a, a.Stamina, len(a.Inventory), value(a.Inventory), weight(a.Inventory))
			case a.Stamina == 0:
				die(a, "collapsed in the doorway to room #%d and died of exhaustion", a.Room)
			default:
				g.logf("%s moved into room #%d", a, a.Room)
			}
		case Take:
			room := g.rooms[a.Room]
			idx := pyIndex(act.Index, len(room))
			if idx < 0 {
				die(a, "%s (Invalid treasure index)", g.trap())
				continue
			}
			t := room[idx]
			switch {
			case act.Bid < t.Weight:
				die(a, "tried to lift %s but %s (Bid too low)", t.Name, g.trap())
			case act.Bid > a.Stamina:
				die(a, "went all out to take %s, but had a heart attack and collapsed. (Bid too high)", t.Name)
			case t.Weight+weight(a.Inventory) > Capacity:
				die(a, "%s (Treasure too heavy)", g.trap())
			default:
				// Bids are grouped by the treasure itself, whatever index named it (policy).
				k := slices.IndexFunc(contests, func(c contest) bool { return c.room == a.Room && c.idx == idx })
				if k < 0 {
					contests = append(contests, contest{room: a.Room, idx: idx})
					k = len(contests) - 1
				}
				contests[k].bids = append(contests[k].bids, bid{i, act.Bid})
				a.Stamina -= act.Bid
			}
		case Drop:
			a.Stamina -= DropCost
			idx := pyIndex(act.Index, len(a.Inventory))
			if idx < 0 {
				die(a, "was bitten by a venomous spider and died moments later. (Invalid drop)")
				continue
			}
			t := a.Inventory[idx]
			a.Inventory = slices.Concat(a.Inventory[:idx], a.Inventory[idx+1:])
			drops = append(drops, drop{a.Room, t})
			g.logf("%s Dropped a treasure into room #%d: %s", a, a.Room, t)
		default:
			die(a, "%s (Invalid action.)", g.trap())
		}
	}

	// C: contests in the order of their first bid.
	taken := map[[2]int]bool{}
	for _, c := range contests {
		t := g.rooms[c.room][c.idx]
		winner := c.bids[0]
		for _, b := range c.bids[1:] {
			switch {
			case b.amount > winner.amount:
				winner = b
			case b.amount == winner.amount:
				winner.adv = -1 // a shared highest bid: nobody, unless a higher one follows
			}
		}
		for _, b := range c.bids {
			a := g.Advs[b.adv]
			switch {
			case b.adv == winner.adv && len(c.bids) == 1:
				g.logf("%s took %s", a, t)
			case b.adv == winner.adv:
				g.logf("%s fought hard and took %s", a, t)
			default:
				g.logf("%s attempted to take %s, but was met with resistance.", a, t.Name)
			}
		}
		if winner.adv >= 0 {
			g.Advs[winner.adv].Inventory = append(g.Advs[winner.adv].Inventory, t)
			taken[[2]int{c.room, c.idx}] = true
		}
	}

	// D–E: untaken treasures keep their order; drops follow in processing order.
	var touched []int
	for _, c := range contests {
		touched = append(touched, c.room)
	}
	for _, d := range drops {
		touched = append(touched, d.room)
	}
	sort.Ints(touched)
	for _, r := range slices.Compact(touched) {
		var next []Treasure
		for k, t := range g.rooms[r] {
			if !taken[[2]int{r, k}] {
				next = append(next, t)
			}
		}
		for _, d := range drops {
			if d.room == r {
				next = append(next, d.t)
			}
		}
		g.rooms[r] = next
	}

	// F: deaths spill what the dead carried, in the order they were recorded.
	for _, a := range dying {
		g.kill(a)
	}
	g.Turns++
}

// Standing is one adventurer's place at the end of a game.
type Standing struct {
	Seat   int // index into Advs
	Adv    *Adventurer
	Points int
}

// Ranking orders the adventurers by (alive, total value, −weight, −count, values of the
// items from the most valuable down), stable in seating order, and gives N − position
// points to those alive with at least one treasure (§2.7).
func (g *Game) Ranking() []Standing {
	out := make([]Standing, len(g.Advs))
	for i, a := range g.Advs {
		out[i] = Standing{Seat: i, Adv: a}
	}
	keys := make([]key, len(g.Advs))
	for i, a := range g.Advs {
		keys[i] = rankKey(a)
	}
	sort.SliceStable(out, func(i, j int) bool { return slices.Compare(keys[out[i].Seat], keys[out[j].Seat]) > 0 })
	for p := range out {
		if a := out[p].Adv; a.Alive() && len(a.Inventory) > 0 {
			out[p].Points = len(out) - p
		}
	}
	return out
}

// key is the ranking key, compared element by element like a Python tuple.
type key []int

func rankKey(a *Adventurer) key {
	alive := 0
	if a.Alive() {
		alive = 1
	}
	k := key{alive, value(a.Inventory), -weight(a.Inventory), -len(a.Inventory)}
	vals := make([]int, len(a.Inventory))
	for i, t := range a.Inventory {
		vals[i] = t.Value
	}
	sort.Sort(sort.Reverse(sort.IntSlice(vals)))
	return append(k, vals...)
}
