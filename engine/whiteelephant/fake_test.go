package whiteelephant

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/kothd/kothd/engine"
)

// A fake engine.Exchanger with scripted bots written in Go, for the rules tests. It speaks
// the harness's wire format: arguments go through JSON as they would to Python.

// entry is one row of the present table as a bot sees it.
type entry struct {
	Name   string
	Value  float64
	Steals int
}

// view is what a scripted bot is asked with.
type view struct {
	Game      int
	Bot       int
	Name      string // the instance's name this round
	Players   []string
	Presents  []entry
	JustStole string // "" for None
}

// String renders a call like the rows of spec §7.1.
func (v view) String() string {
	var p []string
	for _, e := range v.Presents {
		p = append(p, fmt.Sprintf("%s:(%v,%d)", e.Name, e.Value, e.Steals))
	}
	js := "None"
	if v.JustStole != "" {
		js = v.JustStole
	}
	return fmt.Sprintf("%s %v {%s} %s", v.Name, v.Players, strings.Join(p, " "), js)
}

// policy is a scripted answer the harness resolved by opening, with a fault.
type policy string

// script answers a turn: nil opens, a string names a holder, a policy or *engine.Fault.
type script func(v view) any

type fakeEx struct {
	bots  []script
	ctor  map[int]*engine.Fault // faults of a turn that makes the instance (a constructor that raises)
	seats map[[2]int]*fakeSeat  // (game, bot) → the round as the bot's process knows it
	turns []view
	seeds []uint64
}

func newFake(bots ...script) *fakeEx {
	return &fakeEx{bots: bots, ctor: map[int]*engine.Fault{}, seats: map[[2]int]*fakeSeat{}}
}

func (f *fakeEx) Exchange(_ context.Context, calls []engine.Call) []engine.Reply {
	out := make([]engine.Reply, len(calls))
	for i, c := range calls {
		out[i] = f.one(c)
	}
	return out
}

func (f *fakeEx) one(c engine.Call) engine.Reply {
	raw, err := json.Marshal(c.Args)
	if err != nil {
		panic(err)
	}
	ok := engine.Reply{Result: json.RawMessage("true")}
	switch c.Method {
	case "seed":
		var a seedArgs
		mustDecode(raw, &a)
		f.seeds = append(f.seeds, a.Seed)
		return ok
	case "end":
		return ok
	case "turn":
		// The wire of harness.py's Handler, read back as the harness does.
		var a struct {
			Name      *string         `json:"n"`
			Players   json.RawMessage `json:"p"`
			Values    []float64       `json:"v"`
			Table     []any           `json:"t"`
			JustStole *string         `json:"j"`
		}
		mustDecode(raw, &a)
		key := [2]int{c.Game, c.Bot}
		var players []string
		if a.Name != nil { // the player's first turn of the round makes its instance
			delete(f.seats, key)
			if flt := f.ctor[c.Bot]; flt != nil {
				return engine.Reply{Fault: flt}
			}
			mustDecode(a.Players, &players)
			if players == nil {
				panic("players must be a JSON list, not null: " + string(raw))
			}
			f.seats[key] = &fakeSeat{name: *a.Name, players: players}
		}
		seat := f.seats[key]
		if seat == nil {
			panic(fmt.Sprintf("turn without an instance: %s", raw))
		}
		if a.Name == nil {
			var left int
			mustDecode(a.Players, &left)
			players = seat.players[len(seat.players)-left:]
		}
		seat.values = append(seat.values, a.Values...)
		if a.Table == nil || len(a.Table)%3 != 0 {
			panic("the table must be a JSON list of triples: " + string(raw))
		}
		v := view{Game: c.Game, Bot: c.Bot, Name: seat.name, Players: players, Presents: []entry{}}
		for i := 0; i < len(a.Table); i += 3 {
			v.Presents = append(v.Presents, entry{a.Table[i].(string), seat.values[int(a.Table[i+1].(float64))], int(a.Table[i+2].(float64))})
		}
		if a.JustStole != nil {
			v.JustStole = *a.JustStole
		}
		f.turns = append(f.turns, v)
		switch ans := f.bots[c.Bot](v).(type) {
		case nil:
			return engine.Reply{Result: json.RawMessage(`null`)}
		case string:
			for i, e := range v.Presents { // the harness answers the table index
				if e.Name == ans {
					return engine.Reply{Result: json.RawMessage(strconv.Itoa(i))}
				}
			}
			return engine.Reply{Result: json.RawMessage(`null`)}
		case policy:
			b, _ := json.Marshal(map[string]any{"p": string(ans)})
			return engine.Reply{Result: b}
		case *engine.Fault:
			return engine.Reply{Fault: ans}
		default:
			panic(fmt.Sprintf("script answered %T", ans))
		}
	}
	panic("unknown method " + c.Method)
}

// fakeSeat is what a harness keeps of a game's round: the instance's name, the waiting
// players of its first turn and the values sent so far.
type fakeSeat struct {
	name    string
	players []string
	values  []float64
}

func mustDecode(raw []byte, v any) {
	if err := json.Unmarshal(raw, v); err != nil {
		panic(err)
	}
}

// direct asks the fake exchanger without a Lockstep, for single-game rules tests.
type direct struct {
	ex   engine.Exchanger
	game int
}

func (d direct) Ask(calls ...engine.Call) []engine.Reply {
	for i := range calls {
		calls[i].Game = d.game
	}
	return d.ex.Exchange(context.Background(), calls)
}

// fixedDealer deals scripted names (the first n of its list), the identity turn order
// unless perm is set, and scripted values.
type fixedDealer struct {
	list   []string
	perm   []int
	values []float64
	drawn  int
}

func (d *fixedDealer) names(_ []string, n int) []string { return append([]string(nil), d.list[:n]...) }
func (d *fixedDealer) order(n int) []int {
	if len(d.perm) == n {
		return append([]int(nil), d.perm...)
	}
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return p
}
func (d *fixedDealer) value() float64 {
	v := d.values[d.drawn%len(d.values)]
	d.drawn++
	return v
}

// holderOf answers with the holder of the present worth v, or nil.
func holderOf(v view, value float64) any {
	for _, e := range v.Presents {
		if e.Value == value {
			return e.Name
		}
	}
	return nil
}

// Scripted strategies.
func nice(view) any { return nil }

func greedy(v view) any {
	best := -1
	for i, e := range v.Presents {
		if e.Steals < maxSteals && e.Name != v.JustStole && (best < 0 || e.Value > v.Presents[best].Value) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	return v.Presents[best].Name
}

func entrants(names ...string) []engine.Entrant {
	out := make([]engine.Entrant, len(names))
	for i, n := range names {
		out[i] = engine.Entrant{Name: n}
	}
	return out
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
