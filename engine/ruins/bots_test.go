package ruins

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"sync"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/engine/pyrand"
)

// goBot is a test bot written in Go: it gets its own random.Random equivalent and the state,
// and answers the harness's normalised action (or an error, which the exchanger turns into
// a crash fault, as the harness does for an exception).
type goBot func(r *pyrand.Rand, s State) ([]any, error)

// The author's test bots (§5.4).
var (
	eagerThief goBot = func(r *pyrand.Rand, s State) ([]any, error) {
		carry := s.CarryWeight()
		if s.Stamina/MoveCost(carry) <= s.Room+1 {
			return []any{"previous"}, nil
		}
		if len(s.Treasures) > 0 && carry+s.Treasures[0].Weight < 50 {
			return []any{"take", 0, s.Treasures[0].Weight + r.Below(2*len(s.Players)+1)}, nil
		}
		return []any{"next"}, nil
	}
	chad          goBot = func(*pyrand.Rand, State) ([]any, error) { return []any{"next"}, nil }
	coward        goBot = func(*pyrand.Rand, State) ([]any, error) { return []any{"previous"}, nil }
	emoKid        goBot = func(*pyrand.Rand, State) ([]any, error) { return []any{"drop", 0}, nil }
	greedyBastard goBot = func(r *pyrand.Rand, s State) ([]any, error) {
		if len(s.Treasures) > 0 {
			return []any{"take", 0, s.Treasures[0].Weight + 5}, nil
		}
		return []any{"next"}, nil
	}
	// ['take', '5', '1']: a string index, which the harness refuses.
	mischievousKid goBot = func(*pyrand.Rand, State) ([]any, error) {
		return nil, fmt.Errorf("InvalidAction: take index '5' is not an integer")
	}
	// drunkardBot is the Drunkard hosted as if it were a participant's class.
	drunkardBot goBot = func(r *pyrand.Rand, s State) ([]any, error) {
		a := (&Drunkard{r: r}).Act(s)
		switch a.Kind {
		case Next:
			return []any{"next"}, nil
		case Previous:
			return []any{"previous"}, nil
		case Take:
			return []any{"take", a.Index, a.Bid}, nil
		case Drop:
			return []any{"drop", a.Index}, nil
		}
		return nil, fmt.Errorf("%s", a.Why)
	}
)

// testBots is the reference set in the original's loading order (§5.4).
func testBots() ([]engine.Entrant, []goBot) {
	names := []string{"EagerThief", "EmoKid", "Chad", "Coward", "GreedyBastard", "MischievousKid"}
	fns := []goBot{eagerThief, emoKid, chad, coward, greedyBastard, mischievousKid}
	for i := range 6 {
		names = append(names, fmt.Sprintf("EagerClone%d", i))
		fns = append(fns, eagerThief)
	}
	var es []engine.Entrant
	for _, n := range names {
		es = append(es, engine.Entrant{Name: n})
	}
	return es, fns
}

// goExchanger hosts goBots behind the engine.Exchanger interface, with the harness's wire
// format (arguments go through JSON), per-(game, seat) instances, and faults for errors.
type goExchanger struct {
	bots []goBot
	// hook, when set, may replace a call's reply (fault injection).
	hook func(c engine.Call) *engine.Reply

	mu    sync.Mutex
	inst  map[[3]int]*pyrand.Rand
	known map[[3]int]*[]Treasure // per instance: the treasures it was shown whole
	calls int
	seen  []engine.Call // every call, in order, when record is set
	rec   bool
	// direct hands arguments over without JSON.
	direct bool
}

func newGoExchanger(bots []goBot) *goExchanger {
	return &goExchanger{bots: bots, inst: map[[3]int]*pyrand.Rand{}, known: map[[3]int]*[]Treasure{}}
}

func (x *goExchanger) Exchange(ctx context.Context, calls []engine.Call) []engine.Reply {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := make([]engine.Reply, len(calls))
	for i, c := range calls {
		x.calls++
		if x.rec {
			x.seen = append(x.seen, c)
		}
		if x.hook != nil {
			if r := x.hook(c); r != nil {
				out[i] = *r
				continue
			}
		}
		out[i] = x.one(c)
	}
	return out
}

// wireArgs is the union of the calls' arguments as the harness reads them.
type wireArgs struct {
	S    int    `json:"s"`
	Seed string `json:"seed"`
	Name string `json:"name"`
	State
	// The treasures as sent: whole, or the number of one the seat was shown (resolve).
	RawTreasures []json.RawMessage `json:"treasures"`
	RawInventory []json.RawMessage `json:"inventory"`
}

// resolve fills the state's treasures and inventory from the raw lists, as the harness does:
// a number names a treasure of known, a whole treasure is appended to it.
func (a *wireArgs) resolve(known *[]Treasure) error {
	read := func(raws []json.RawMessage) ([]Treasure, error) {
		out := []Treasure{}
		for _, r := range raws {
			var n int
			if err := json.Unmarshal(r, &n); err == nil {
				if n < 0 || n >= len(*known) {
					return nil, fmt.Errorf("treasure number %d of %d", n, len(*known))
				}
				out = append(out, (*known)[n])
				continue
			}
			var t Treasure
			if err := json.Unmarshal(r, &t); err != nil {
				return nil, err
			}
			*known = append(*known, t)
			out = append(out, t)
		}
		return out, nil
	}
	var err error
	if a.Treasures, err = read(a.RawTreasures); err != nil {
		return err
	}
	a.Inventory, err = read(a.RawInventory)
	return err
}

func (x *goExchanger) args(c engine.Call) (wireArgs, error) {
	var a wireArgs
	if x.direct { // skip JSON for speed; the other tests cover the wire format
		switch v := c.Args.(type) {
		case newArgs:
			return wireArgs{S: v.S, Seed: v.Seed, Name: v.Name}, nil
		case actArgs:
			return wireArgs{S: v.S, State: v.State}, nil
		case endArgs:
			return wireArgs{S: v.S}, nil
		}
	}
	raw, err := json.Marshal(c.Args)
	if err != nil {
		return a, err
	}
	err = json.Unmarshal(raw, &a)
	return a, err
}

func (x *goExchanger) one(c engine.Call) engine.Reply {
	a, err := x.args(c)
	if err != nil {
		return engine.Reply{Fault: &engine.Fault{Outcome: engine.HostFault, Detail: err.Error()}}
	}
	key := [3]int{c.Bot, c.Game, a.S}
	switch c.Method {
	case "new":
		seed, ok := new(big.Int).SetString(a.Seed, 10)
		if !ok {
			return engine.Reply{Fault: &engine.Fault{Outcome: engine.Crash, Detail: "bad seed " + a.Seed}}
		}
		x.inst[key] = pyrand.New(seed)
		x.known[key] = new([]Treasure)
		return engine.Reply{Result: json.RawMessage("true")}
	case "end":
		delete(x.inst, key)
		delete(x.known, key)
		return engine.Reply{Result: json.RawMessage("true")}
	case "act":
		r := x.inst[key]
		if r == nil {
			return engine.Reply{Fault: &engine.Fault{Outcome: engine.Crash, Detail: "lost instance", ProcessDied: true}}
		}
		if !x.direct {
			if err := a.resolve(x.known[key]); err != nil {
				return engine.Reply{Fault: &engine.Fault{Outcome: engine.HostFault, Detail: err.Error()}}
			}
		}
		act, err := x.bots[c.Bot](r, a.State)
		if err != nil {
			return engine.Reply{Fault: &engine.Fault{Outcome: engine.Crash, Detail: err.Error()}}
		}
		b, _ := json.Marshal(act)
		return engine.Reply{Result: b}
	}
	return engine.Reply{Fault: &engine.Fault{Outcome: engine.Crash, Detail: "unknown method " + c.Method}}
}

// playOne plays a single game over a lockstep with the given exchanger.
func playOne(ex engine.Exchanger, seats []Seat, seed *big.Int, log func(string)) GameResult {
	var res GameResult
	err := engine.Lockstep{Exchanger: ex}.Run(context.Background(), 1, func(t *engine.Table) {
		res = PlayGame(t, seats, seed, log)
	})
	if err != nil {
		panic(err)
	}
	return res
}
