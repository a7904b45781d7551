// Package whiteelephant is the engine of the White Elephant Exchange King of the Hill
// (codegolf 169235), as summarised in docs/games/whiteelephant.md ("spec §n" below names a
// section of the rules kothd was written from): bots are Python classes hosted
// by the pyclass harness (harness.py, beside this file), which owns nothing but the bots'
// code; the present table, the turn order, every steal and every score live here.
//
// The original contest is one long game of many rounds (about 900 with three bots), each
// round a strictly sequential chain of decisions. Several independent games (spec §5, an
// engine addition) run concurrently through engine.Lockstep; with one game Lockstep simply
// plays it call by call.
package whiteelephant

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/kothd/kothd/engine"
)

// Constants of the original driver (spec §2.1, §2.4).
const (
	DefaultWinningScore = 500.0
	maxSteals           = 3   // honoured by steal_targets; enforced only by the safety valve
	valveFactor         = 100 // the safety valve opens after valveFactor × n steals in a round
)

// basePool is the driver's name pool, in its order (spec §2.1).
var basePool = []string{
	"Alice", "Alex", "Albert", "Bob", "Betty", "Brian", "Carol", "Charlie", "Candace", "Dave",
	"Debra", "Donna", "Elizabeth", "Elliott", "Edward", "Fred", "Francis", "Frank", "George",
	"Greg", "Gina", "Hank", "Helen", "Harold", "Isabel", "Isaac", "Ian", "Justin", "Jennifer",
	"John", "Ken", "Kathy", "Kyle", "Lisa", "Leonard", "Link", "Matt", "Mike", "Melissa", "Nancy",
	"Nicole", "Nick", "Oliver", "Ophelia", "Opal", "Peter", "Priscilla", "Paul", "Quinn",
	"Richard", "Robin", "Rachel", "Sam", "Stephanie", "Steve", "Theo", "Trisha", "Tony",
	"Ulysses", "Umbra", "Vince", "Victoria", "Winston", "William", "Whitney", "Xavier", "Yvette",
	"Zelda", "Zachary",
}

// namePool returns the pool for n players: the driver's 69 names, extended with Guest70,
// Guest71, … when there are more players (spec §4, engine addition).
func namePool(n int) []string {
	if n <= len(basePool) {
		return basePool // the dealer copies before it shuffles
	}
	pool := append([]string(nil), basePool...)
	for i := len(pool) + 1; i <= n; i++ {
		pool = append(pool, "Guest"+strconv.Itoa(i))
	}
	return pool
}

// asker sends one tick of calls for a game: *engine.Table in a tournament, a direct
// exchanger in tests.
type asker interface {
	Ask(calls ...engine.Call) []engine.Reply
}

// dealer makes the engine's draws of spec §3, in that order within a round.
type dealer interface {
	names(pool []string, n int) []string // ordered sample without replacement
	order(n int) []int                   // the turn order: a permutation of 0..n-1
	value() float64                      // a present's value, uniform in [0, 1)
}

// Wire format of the harness methods (harness.py, beside this file; its Handler describes
// the turn message).
type (
	seedArgs struct {
		Seed uint64 `json:"seed"`
	}
	// turnArgs is one turn's message. Name, on a player's first turn of the round, makes
	// its instance; Players then travels as the list of waiting names, later as their
	// number (the process keeps the list of its first turn, whose suffix they are). Values
	// are those of the presents opened since the player's last call of the round (each
	// value crosses once per process and round: decoding the table's doubles on every call
	// was most of the harness's work), and Table names presents by their number.
	turnArgs struct {
		Name      string
		Players   []string
		Values    []float64
		Table     []present
		JustStole *string
	}
)

// present is one entry of the present table: who holds it, which opening of the round it
// came from (its number on the wire), its value and how often it was stolen.
type present struct {
	holder string
	id     int
	value  float64
	steals int
}

// appendString appends s as a JSON string (every pool name is plain).
func appendString(b []byte, s string) []byte {
	if plain(s) {
		return append(append(append(b, '"'), s...), '"')
	}
	q, _ := json.Marshal(s) // a string always marshals
	return append(b, q...)
}

// appendValue appends v as a JSON number that Python's json reads back as the same float:
// Go writes the shortest text that round-trips and Python parses it correctly rounded
// (spec §1.4); an integral value (0) gets ".0" so that it arrives as a float, not an int.
func appendValue(b []byte, v float64) []byte {
	n := len(b)
	b = strconv.AppendFloat(b, v, 'g', -1, 64)
	for _, c := range b[n:] {
		if c == '.' || c == 'e' {
			return b
		}
	}
	return append(b, ".0"...)
}

// MarshalJSON writes a turn's message (for tests and any runner without AppendJSON).
func (a turnArgs) MarshalJSON() ([]byte, error) {
	return a.AppendJSON(make([]byte, 0, 64+16*len(a.Players)+24*len(a.Values)+16*len(a.Table))), nil
}

// AppendJSON appends the turn's message to b, written by hand: it is nearly every call of
// a run.
func (a turnArgs) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	if a.Name != "" {
		b = append(b, `"n":`...)
		b = appendString(b, a.Name)
		b = append(b, `,"p":[`...)
		for i, p := range a.Players {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, p)
		}
		b = append(b, ']')
	} else {
		b = append(b, `"p":`...)
		b = strconv.AppendInt(b, int64(len(a.Players)), 10)
	}
	if len(a.Values) > 0 {
		b = append(b, `,"v":[`...)
		for i, v := range a.Values {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendValue(b, v)
		}
		b = append(b, ']')
	}
	b = append(b, `,"t":[`...)
	for i, p := range a.Table {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, p.holder)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(p.id), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(p.steals), 10)
	}
	b = append(b, ']')
	if a.JustStole != nil {
		b = append(b, `,"j":`...)
		b = appendString(b, *a.JustStole)
	}
	return append(b, '}')
}

// plain reports whether s needs no escaping in JSON (every pool name).
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// player is one instance in a round: the competitor (bot index) and its round name.
type player struct {
	bot  int
	name string
}

// game is one game's state (spec §2.2).
type game struct {
	c       asker
	d       dealer
	bots    []engine.Entrant
	members []int // the game's competitors, in competitor order (spec §1.3)
	active  []int // competitor list: members not disqualified, in competitor order
	target  float64

	score   []float64 // by bot index; disqualified bots keep their frozen score
	rounds  []int     // completed rounds each bot scored in
	dq      []string  // disqualification reason, "" while playing
	faults  []int     // faults the engine handled, by bot index
	played  int       // completed rounds
	voided  int       // rounds abandoned by a disqualification
	void    string    // set when a host fault voids the game
	onFault func(bot int, f *engine.Fault, input any)
	trace   func(string)
}

func newGame(c asker, d dealer, bots []engine.Entrant, competitors []int, target float64) *game {
	n := len(bots)
	return &game{
		c: c, d: d, bots: bots, target: target,
		members: append([]int(nil), competitors...), active: append([]int(nil), competitors...),
		score: make([]float64, n), rounds: make([]int, n), dq: make([]string, n), faults: make([]int, n),
	}
}

func (g *game) log(format string, a ...any) {
	if g.trace != nil {
		g.trace(fmt.Sprintf(format, a...))
	}
}

// over is the check before every round (spec §2.2, §2.6, §4): a score of at least the
// target, disqualified classes included, or nobody left to play.
func (g *game) over() bool {
	if len(g.active) == 0 {
		return true
	}
	for _, b := range g.members {
		if g.score[b] >= g.target {
			return true
		}
	}
	return false
}

// run plays rounds until the game is over or voided. seed feeds the harness's Python
// random module (spec §3), one stream per class.
func (g *game) run(seed uint64) {
	calls := make([]engine.Call, len(g.active))
	for i, b := range g.active {
		calls[i] = engine.Call{Bot: b, Method: "seed", Args: seedArgs{engine.SubSeed(seed, "python:"+g.bots[b].Name)}}
	}
	if len(calls) > 0 && g.faulted(calls, g.c.Ask(calls...)) {
		// A class whose process cannot even start is out before the first round.
		g.removeDisqualified()
	}
	for g.void == "" && !g.over() {
		g.round()
	}
	if g.void != "" {
		return
	}
	// Let the harnesses drop this game's instances; nothing depends on the answers.
	calls = calls[:0]
	for _, b := range g.active {
		calls = append(calls, engine.Call{Bot: b, Method: "end"})
	}
	if len(calls) > 0 {
		g.c.Ask(calls...)
	}
	if w := g.winner(); w >= 0 {
		g.log("[!!!] %s is the winner!", g.bots[w].Name)
	}
}

// winner is the class with the highest score, the earliest in competitor order on ties.
func (g *game) winner() int {
	best := -1
	for _, b := range g.members {
		if best < 0 || g.score[b] > g.score[best] {
			best = b
		}
	}
	return best
}

// faulted applies the fault rules to replies of calls: a host fault voids the game, any
// other fault disqualifies the bot (spec §4). It reports whether any bot was disqualified.
func (g *game) faulted(calls []engine.Call, replies []engine.Reply) bool {
	for _, r := range replies {
		if r.Fault != nil && r.Fault.Outcome == engine.HostFault {
			g.void = r.Fault.Error()
			return false
		}
	}
	any := false
	for i, r := range replies {
		if r.Fault != nil {
			g.disqualify(calls[i].Bot, r.Fault)
			any = true
		}
	}
	return any
}

func (g *game) disqualify(bot int, f *engine.Fault) {
	g.faults[bot]++
	if g.dq[bot] == "" {
		g.dq[bot] = reason(f)
		g.log("%s has been disqualified. Reason: %s", g.bots[bot].Name, g.dq[bot])
	}
}

// removeDisqualified drops disqualified classes from the competitor list.
func (g *game) removeDisqualified() {
	kept := g.active[:0]
	for _, b := range g.active {
		if g.dq[b] == "" {
			kept = append(kept, b)
		}
	}
	g.active = kept
}

// reason is the exception text of a fault: the last line of a Python traceback, or for a
// process that died, how it ended and the last line it wrote to stderr.
func reason(f *engine.Fault) string {
	d := strings.TrimSpace(f.Detail)
	if head, stderr, ok := strings.Cut(d, "; stderr:"); ok && f.ProcessDied {
		d = head
		if last := lastLine(stderr); last != "" {
			d += ": " + last
		}
		if f.Outcome == engine.Crash {
			d = "process died: " + d
		}
	} else {
		d = lastLine(d)
	}
	if f.Outcome != engine.Crash || d == "" {
		if d == "" {
			return string(f.Outcome)
		}
		d = string(f.Outcome) + ": " + d
	}
	const limit = 200
	if len(d) > limit {
		d = d[:limit] + "…"
	}
	return d
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[i+1:])
	}
	return s
}
