package ruins

import (
	"fmt"
	"math/big"
	"strconv"

	"github.com/kothd/kothd/engine"
)

// The harness methods (harness.py, beside this file). Every call names the seat, so one process
// can hold several instances of its class in one game.
//
//	new {s, seed, name} -> true   constructs cls(name, random.Random(seed)), calls enter_ruins()
//	act {s, room, treasures, players, inventory, stamina} -> ["next"] | ["previous"] |
//	    ["take", index, bid] | ["drop", index]   (get_action, converted as in ruins.go)
//	end {s} -> true                forgets the instance
//
// A treasure travels whole, [name, value, weight], the first time a seat is shown it, and as
// its number afterwards: the harness numbers the treasures of each seat from 0 in the order
// it receives them whole (the room's list, then the inventory) and hands the bot the very
// same Treasure object each time, as the original did. A deep room's treasures are most of
// what a tournament sends; numbers tell a bot nothing it was not shown.
type newArgs struct {
	S    int    `json:"s"`
	Seed string `json:"seed"` // decimal: the harness passes int(seed) to random.Random
	Name string `json:"name"`
}

// AppendJSON appends {"s":…,"seed":"…","name":"…"} (for a runner that writes requests
// without encoding/json).
func (a newArgs) AppendJSON(b []byte) []byte {
	b = append(b, `{"s":`...)
	b = strconv.AppendInt(b, int64(a.S), 10)
	b = append(b, `,"seed":`...)
	b = appendString(b, a.Seed)
	b = append(b, `,"name":`...)
	b = appendString(b, a.Name)
	return append(b, '}')
}

type actArgs struct {
	S int `json:"s"`
	State
	// refs numbers the state's treasures, then its inventory, for the wire: a treasure's
	// number when the seat has been shown it, -1 to send it whole. nil sends all whole.
	refs []int
}

// MarshalJSON writes {"s":…,"room":…,…} in one pass.
func (a actArgs) MarshalJSON() ([]byte, error) {
	return a.AppendJSON(make([]byte, 0, 64+8*(len(a.Treasures)+len(a.Inventory))+24*len(a.Players))), nil
}

// AppendJSON appends the arguments' JSON to b (for a runner that writes requests without
// encoding/json).
func (a actArgs) AppendJSON(b []byte) []byte {
	b = append(b, `{"s":`...)
	b = strconv.AppendInt(b, int64(a.S), 10)
	b = append(b, ',')
	b = a.State.appendJSON(b, a.refs)
	return append(b, '}')
}

// shown numbers the treasures one seat has been shown, in the order it was first shown them
// (the harness's numbering). The dungeon names its treasures "Treasure #<k>", k counting
// from 1 in each game, so the lookup is by k, without hashing; other names (tests) go
// through a map.
type shown struct {
	byK   []shownAs // by k
	other map[Treasure]int
	n     int
}

type shownAs struct {
	t Treasure
	n int // the treasure's number + 1; 0: not shown
}

// refs numbers s's treasures and inventory for the wire (actArgs.refs), counting those shown
// now for the first time as shown.
func (sh *shown) refs(s *State) []int {
	out := make([]int, 0, len(s.Treasures)+len(s.Inventory))
	for _, list := range [2][]Treasure{s.Treasures, s.Inventory} {
		for _, t := range list {
			out = append(out, sh.ref(t))
		}
	}
	return out
}

// ref returns t's number, or -1 after numbering it if it is shown for the first time.
func (sh *shown) ref(t Treasure) int {
	if k, ok := treasureK(t.Name); ok && k < 1<<20 {
		for len(sh.byK) <= k {
			sh.byK = append(sh.byK, shownAs{})
		}
		if e := &sh.byK[k]; e.n == 0 {
			*e = shownAs{t, sh.n + 1}
			sh.n++
			return -1
		} else if e.t == t {
			return e.n - 1
		}
	}
	if n, ok := sh.other[t]; ok {
		return n
	}
	if sh.other == nil {
		sh.other = map[Treasure]int{}
	}
	sh.other[t] = sh.n
	sh.n++
	return -1
}

// treasureK reads k from "Treasure #<k>".
func treasureK(name string) (int, bool) {
	const prefix = "Treasure #"
	if len(name) <= len(prefix) || name[:len(prefix)] != prefix {
		return 0, false
	}
	k := 0
	for _, c := range []byte(name[len(prefix):]) {
		if c < '0' || c > '9' {
			return 0, false
		}
		k = k*10 + int(c-'0')
		if k >= 1<<20 {
			return 0, false
		}
	}
	return k, true
}

type endArgs struct {
	S int `json:"s"`
}

// AppendJSON appends {"s":…} (for a runner that writes requests without encoding/json).
func (a endArgs) AppendJSON(b []byte) []byte {
	b = append(b, `{"s":`...)
	b = strconv.AppendInt(b, int64(a.S), 10)
	return append(b, '}')
}

// GameResult is one game's outcome.
type GameResult struct {
	Voided bool   // a host fault: the game is not scored
	Why    string // why it was voided
	Turns  int
	Rooms  int         // rooms generated
	Ranked []Standing  // ranking order
	Left   []Seat      // replaced by a namesake before the game (§2.3)
	Faults map[int]int // bot index -> faults handled in this game
}

// PlayGame plays one game on a lockstep table: seats in seating order, the game seed (a
// 1337-bit integer in tournaments). Remote seats are asked through t; Drunkards are played
// in Go. log, if set, receives the game log.
func PlayGame(t *engine.Table, seats []Seat, seed *big.Int, log func(string)) GameResult {
	return playGame(t, seats, seed, log, gameHooks{})
}

// gameHooks let a replay's trace show what the original log does not: turn numbers and
// the faults behind invalid actions.
type gameHooks struct {
	turn  func(turn int)                       // before each turn's decisions (1, 2, …)
	fault func(a *Adventurer, f *engine.Fault) // a fault of a bot's seat, as it is handled
	// stop, when it says so before a turn, abandons the game (its result is discarded).
	stop func() bool
}

// playGame is PlayGame with hooks.
func playGame(t *engine.Table, seats []Seat, seed *big.Int, log func(string), hooks gameHooks) GameResult {
	g := NewGame(seed, seats)
	g.Log = log
	res := GameResult{Faults: map[int]int{}}
	for _, a := range g.Left {
		res.Left = append(res.Left, a.Seat)
	}
	drunks := make([]*Drunkard, len(g.Advs))
	seen := make([]*shown, len(g.Advs)) // per seat: the treasures its instance holds
	gone := make([]bool, len(g.Advs))   // the instance died with its process: nothing to end
	fault := func(i int, f *engine.Fault) {
		if hooks.fault != nil {
			hooks.fault(g.Advs[i], f)
		}
		res.Faults[g.Advs[i].Bot]++
		if f.ProcessDied {
			gone[i] = true
		}
	}
	// ask sends one call per listed seat and returns the replies, or false when the host
	// failed (the game is then voided).
	ask := func(who []int, calls []engine.Call) ([]engine.Reply, bool) {
		if len(calls) == 0 {
			return nil, true
		}
		replies := t.Ask(calls...)
		for k, r := range replies {
			if r.Fault != nil && r.Fault.Outcome == engine.HostFault {
				res.Voided = true
				res.Why = fmt.Sprintf("seat %d (%s): %s", who[k], g.Advs[who[k]].Class, r.Fault.Error())
				return nil, false
			}
		}
		return replies, true
	}
	defer func() {
		// Forget the instances, whatever happened; replies do not matter.
		var calls []engine.Call
		for i, a := range g.Advs {
			if a.Bot >= 0 && !gone[i] {
				calls = append(calls, engine.Call{Bot: a.Bot, Method: "end", Args: endArgs{S: i}})
			}
		}
		if len(calls) > 0 {
			t.Ask(calls...)
		}
	}()

	var who []int
	var calls []engine.Call
	for i, a := range g.Advs {
		if a.Bot < 0 {
			drunks[i] = NewDrunkard(a.Seed)
			continue
		}
		who = append(who, i)
		calls = append(calls, engine.Call{Bot: a.Bot, Method: "new", Args: newArgs{S: i, Seed: a.Seed.String(), Name: a.Name}})
	}
	replies, ok := ask(who, calls)
	if !ok {
		return res
	}
	for k, r := range replies {
		if r.Fault != nil {
			// The constructor or enter_ruins raised (or timed out): dead on arrival.
			fault(who[k], r.Fault)
			g.DeadOnArrival(who[k])
		}
	}

	actions := make([]Action, len(g.Advs))
	for !g.Over() {
		if hooks.stop != nil && hooks.stop() {
			return res
		}
		if hooks.turn != nil {
			hooks.turn(g.Turns + 1)
		}
		who, calls = nil, nil
		for i, a := range g.Advs {
			actions[i] = Action{}
			if !a.Active() {
				continue
			}
			if drunks[i] != nil {
				actions[i] = drunks[i].Act(g.State(i))
				continue
			}
			who = append(who, i)
			st := g.view(i) // encoded before the next Turn: no copies needed
			if seen[i] == nil {
				seen[i] = &shown{}
			}
			calls = append(calls, engine.Call{Bot: a.Bot, Method: "act", Args: actArgs{S: i, State: st, refs: seen[i].refs(&st)}})
		}
		replies, ok := ask(who, calls)
		if !ok {
			return res
		}
		for k, r := range replies {
			i := who[k]
			if r.Fault != nil {
				fault(i, r.Fault)
				actions[i] = Action{Kind: Invalid, Why: r.Fault.Error()}
				continue
			}
			act, err := ParseAction(r.Result)
			if err != nil { // the harness normalises actions; this is a mismatch, not the bot
				fault(i, &engine.Fault{Outcome: engine.BadOutput, Detail: err.Error()})
				act = Action{Kind: Invalid, Why: err.Error()}
			}
			actions[i] = act
		}
		g.Turn(actions)
	}
	res.Turns = g.Turns
	res.Rooms = g.RoomsGenerated()
	res.Ranked = g.Ranking()
	return res
}
