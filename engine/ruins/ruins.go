// Package ruins is the engine of "Adventurers in the Ruins" (codegolf 183101), following
// the original controller as summarised in docs/games/ruins.md ("spec §n" below names a
// section of the rules kothd was written from): adventurers enter a dungeon whose rooms are generated as they are first
// entered, act simultaneously each turn (move, bid stamina for a treasure, drop one), and
// rank by the value they carry out alive. A tournament deals pool games in groups of ten
// until every bot has played twenty, then plays finals among the top ten until one leads by
// fifty points or five hundred games have been played.
//
// Every draw is made with CPython's generator (package pyrand) in the original controller's
// order, so a published tournament seed string reproduces the original's games, and each bot
// receives a random.Random whose stream the engine knows (the built-in Drunkard is played in
// Go and draws exactly what the Python one would).
//
// The split of work with the harness (harness.py, beside this file): Python applies the Python
// conversions of §4 to get_action's return value (int() of the bid, operator.index of a take
// index, int() of a drop index, the shape of the sequence) because only Python can apply
// Python semantics to arbitrary objects; a value it cannot convert is raised as an error,
// which the engine sees as a fault and turns into death by trap. The harness answers a
// normalised action (["next"], ["previous"], ["take", index, bid], ["drop", index]); every
// rule that needs the game (ranges, negative indices, bid limits, weight, costs) is applied
// here.
package ruins

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// The constants of §2.1.
const (
	StartStamina = 1000
	Capacity     = 50 // kg
	DropCost     = 1
	GameSize     = 10
)

// MoveCost is the stamina a move costs while carrying carry kg: 10 + ceil(carry / 5).
func MoveCost(carry int) int {
	return 10 + (carry+4)/5
}

// Treasure is one item of a room or an inventory.
type Treasure struct {
	Name   string
	Value  int
	Weight int
}

// String is the original's text form, e.g. "Treasure #004 ($57, 6kg)".
func (t Treasure) String() string {
	return fmt.Sprintf("%s ($%d, %dkg)", t.Name, t.Value, t.Weight)
}

// MarshalJSON writes a treasure as [name, value, weight], the harness's Treasure(*t).
func (t Treasure) MarshalJSON() ([]byte, error) {
	return t.appendJSON(make([]byte, 0, len(t.Name)+16)), nil
}

func (t Treasure) appendJSON(b []byte) []byte {
	b = append(b, '[')
	b = appendString(b, t.Name)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(t.Value), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(t.Weight), 10)
	return append(b, ']')
}

// appendString appends s as a JSON string. Names here are plain ASCII; anything else goes
// through encoding/json.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendJSON writes the state's fields (without braces) in one pass: the act call's
// arguments are the bulk of what a tournament sends. refs (nil: none) gives the number to
// send instead of each treasure, then each inventory item, or -1 to send it whole.
func (s *State) appendJSON(b []byte, refs []int) []byte {
	b = append(b, `"room":`...)
	b = strconv.AppendInt(b, int64(s.Room), 10)
	b = append(b, `,"treasures":`...)
	b = appendTreasures(b, s.Treasures, refs)
	b = append(b, `,"players":[`...)
	for i, p := range s.Players {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, p)
	}
	b = append(b, `],"inventory":`...)
	if len(refs) >= len(s.Treasures) {
		refs = refs[len(s.Treasures):]
	}
	b = appendTreasures(b, s.Inventory, refs)
	b = append(b, `,"stamina":`...)
	return strconv.AppendInt(b, int64(s.Stamina), 10)
}

func appendTreasures(b []byte, ts []Treasure, refs []int) []byte {
	b = append(b, '[')
	for i, t := range ts {
		if i > 0 {
			b = append(b, ',')
		}
		if i < len(refs) && refs[i] >= 0 {
			b = strconv.AppendInt(b, int64(refs[i]), 10)
		} else {
			b = t.appendJSON(b)
		}
	}
	return append(b, ']')
}

// UnmarshalJSON reads [name, value, weight].
func (t *Treasure) UnmarshalJSON(b []byte) error {
	var a []json.RawMessage
	if err := json.Unmarshal(b, &a); err != nil || len(a) != 3 {
		return fmt.Errorf("treasure: want [name, value, weight], got %s", b)
	}
	if err := json.Unmarshal(a[0], &t.Name); err != nil {
		return err
	}
	if err := json.Unmarshal(a[1], &t.Value); err != nil {
		return err
	}
	return json.Unmarshal(a[2], &t.Weight)
}

// State is what get_action receives (§1.2). The lists are fresh copies.
type State struct {
	Room      int        `json:"room"`
	Treasures []Treasure `json:"treasures"`
	Players   []string   `json:"players"`
	Inventory []Treasure `json:"inventory"`
	Stamina   int        `json:"stamina"`
}

// CarryWeight is the sum of the inventory's weights.
func (s *State) CarryWeight() int { return weight(s.Inventory) }

// TotalValue is the sum of the inventory's values.
func (s *State) TotalValue() int { return value(s.Inventory) }

func weight(ts []Treasure) int {
	w := 0
	for _, t := range ts {
		w += t.Weight
	}
	return w
}

func value(ts []Treasure) int {
	v := 0
	for _, t := range ts {
		v += t.Value
	}
	return v
}

// Kind is what an action does.
type Kind int

// The kinds of action. Invalid stands for everything that kills by trap before the game
// looks at it: an exception, a time-out, a value the harness could not convert.
const (
	Invalid Kind = iota
	Next
	Previous
	Take
	Drop
)

// Action is one adventurer's decision for one turn, already converted to integers.
type Action struct {
	Kind  Kind
	Index int // Take: treasure index; Drop: inventory index (negative counts from the end)
	Bid   int // Take
	Why   string
}

func (a Action) String() string {
	switch a.Kind {
	case Next:
		return "next"
	case Previous:
		return "previous"
	case Take:
		return fmt.Sprintf("take %d %d", a.Index, a.Bid)
	case Drop:
		return fmt.Sprintf("drop %d", a.Index)
	}
	return "invalid: " + a.Why
}

// ParseAction reads the harness's normalised action.
func ParseAction(raw json.RawMessage) (Action, error) {
	if a, ok := parseCompact(raw); ok {
		return a, nil
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil || len(parts) == 0 {
		return Action{}, fmt.Errorf("action: want a JSON list, got %.100s", raw)
	}
	var verb string
	if err := json.Unmarshal(parts[0], &verb); err != nil {
		return Action{}, fmt.Errorf("action: verb: %w", err)
	}
	ints := make([]int, len(parts)-1)
	for i, p := range parts[1:] {
		if err := json.Unmarshal(p, &ints[i]); err != nil {
			return Action{}, fmt.Errorf("action %s: argument %d: %w", verb, i+1, err)
		}
	}
	switch {
	case verb == "next" && len(ints) == 0:
		return Action{Kind: Next}, nil
	case verb == "previous" && len(ints) == 0:
		return Action{Kind: Previous}, nil
	case verb == "take" && len(ints) == 2:
		return Action{Kind: Take, Index: ints[0], Bid: ints[1]}, nil
	case verb == "drop" && len(ints) == 1:
		return Action{Kind: Drop, Index: ints[0]}, nil
	}
	return Action{}, fmt.Errorf("action: unknown form %.100s", raw)
}

// pyIndex resolves a Python list index (negative counts from the end) into [0, n), or -1.
func pyIndex(i, n int) int {
	if i < 0 {
		i += n
	}
	if i < 0 || i >= n {
		return -1
	}
	return i
}

// parseCompact reads the harness's usual compact forms (["take",2,15]) without reflection;
// anything else is left to ParseAction's general path.
func parseCompact(raw []byte) (Action, bool) {
	s := string(raw)
	if len(s) < 4 || s[0] != '[' || s[len(s)-1] != ']' {
		return Action{}, false
	}
	parts := strings.Split(s[1:len(s)-1], ",")
	ints := make([]int, 0, 2)
	for _, p := range parts[1:] {
		n, err := strconv.Atoi(p)
		if err != nil {
			return Action{}, false
		}
		ints = append(ints, n)
	}
	switch {
	case parts[0] == `"next"` && len(ints) == 0:
		return Action{Kind: Next}, true
	case parts[0] == `"previous"` && len(ints) == 0:
		return Action{Kind: Previous}, true
	case parts[0] == `"take"` && len(ints) == 2:
		return Action{Kind: Take, Index: ints[0], Bid: ints[1]}, true
	case parts[0] == `"drop"` && len(ints) == 1:
		return Action{Kind: Drop, Index: ints[0]}, true
	}
	return Action{}, false
}
