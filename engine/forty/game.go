// Package forty is the engine of "A game of dice, but avoid number 6" (codegolf 177765):
// the rules of one game (this file), the tournament of random 8-seat games and its table.
// The rules, in kothd's words, are in docs/games/forty.md. "spec §n" below names the
// section of the rules as the question states them (codegolf 177765).
package forty

import (
	"fmt"

	"github.com/kothd/kothd/engine"
)

const (
	endScore  = 40
	maxPasses = 200
)

// Seat is a bot as one game sees it. The engine asks it for decisions; an error is a fault
// of the bot (the rules' default applies: stop throwing this turn, §4).
type Seat interface {
	// Begin creates the bot's instance for this game (Cls(seat, 40)).
	Begin(seat int) error
	// Start calls update_state(throws) and make_throw(scores, last) and returns the first
	// value the generator yields (true = throw again).
	Start(throws, scores []int, last bool) (bool, error)
	// Next calls update_state(throws) and returns the generator's next value.
	// Start and Next may read throws only until they return: the turn appends to it.
	Next(throws []int) (bool, error)
	// Lost reports that the bot's instance is gone (its process died) and Begin must be
	// called again before its next turn.
	Lost() bool
}

// Dice is the game's die: uniform integers in [1, 6], drawn in throw order (§3).
type Dice func() int

// SeatStats are one seat's statistics for one game (§2.4).
type SeatStats struct {
	Score     int
	Won       bool
	Turns     int
	Throws    int
	Successes int // turns not ending in a 6
	Errors    int // faults handled by the rules' default
}

// GameResult is the outcome of one game.
type GameResult struct {
	Seats  []SeatStats
	Passes int  // passes of the main loop (§2.3), not counting the final partial pass
	Capped bool // the 200-pass cap ended the main loop
	Void   bool // a host fault voided the game
	Max    int  // the winning score
}

// Play plays one game with the given seats (in seat order) and die (§2.2, §2.3).
func Play(seats []Seat, die Dice) GameResult { return PlayTraced(seats, die, nil) }

// PlayTraced is Play that reports every turn to trace (nil: no trace), for replays.
func PlayTraced(seats []Seat, die Dice, trace func(string)) GameResult {
	k := len(seats)
	g := &game{seats: seats, die: die, scores: make([]int, k), res: GameResult{Seats: make([]SeatStats, k)}, broken: make([]bool, k), trace: trace}
	for i := range seats {
		g.begin(i)
	}
	last, initiator := false, -1
	for !last && !g.res.Void {
		for i := 0; i < k; i++ {
			g.turn(i, last)
			if !last && g.scores[i] >= endScore {
				last, initiator = true, i
			}
		}
		g.res.Passes++
		if g.res.Passes >= maxPasses {
			last, initiator, g.res.Capped = true, k, true
		}
	}
	for i := 0; i < initiator && !g.res.Void; i++ {
		g.turn(i, true)
	}
	best := 0
	for i := range seats {
		g.res.Seats[i].Score = g.scores[i]
		best = max(best, g.scores[i])
	}
	g.res.Max = best
	for i := range seats {
		g.res.Seats[i].Won = g.scores[i] == best
	}
	return g.res
}

type game struct {
	seats  []Seat
	die    Dice
	scores []int
	broken []bool // constructor raised: automatic throw, then stop (§4)
	res    GameResult
	trace  func(string)
}

// begin creates seat i's instance; a constructor fault costs one error for the game.
func (g *game) begin(i int) {
	if err := g.seats[i].Begin(i); err != nil {
		g.fault(i, err)
		g.broken[i] = true
		return
	}
	g.broken[i] = false
}

// fault records a bot error, or voids the game when the host is at fault.
func (g *game) fault(i int, err error) {
	if f, ok := err.(*engine.Fault); ok && f.Outcome == engine.HostFault {
		g.res.Void = true
		return
	}
	g.res.Seats[i].Errors++
}

// turn plays seat i's turn (§2.2).
func (g *game) turn(i int, last bool) {
	if g.res.Void {
		return
	}
	s := g.seats[i]
	if s.Lost() && !g.broken[i] {
		g.begin(i)
	}
	throws := []int{g.die()}
	if throws[0] != 6 && !g.broken[i] {
		more, err := s.Start(throws, clone(g.scores), last)
		for err == nil && more {
			d := g.die()
			throws = append(throws, d)
			if d == 6 {
				break
			}
			more, err = s.Next(throws)
		}
		if err != nil {
			g.fault(i, err)
			g.tracef("  seat %d fault: %v", i, err)
		}
	}
	before := g.scores[i]
	t, six := 0, throws[len(throws)-1] == 6
	for _, d := range throws {
		if d != 6 {
			t += d
		}
	}
	switch {
	case !six:
		g.scores[i] += t
	case g.scores[i]+t >= endScore:
		g.scores[i] = 0
	}
	if g.trace != nil { // the arguments alone cost allocations on every turn
		g.tracef("pass %d, seat %d%s: throws %v → %d (was %d)", g.res.Passes+1, i, map[bool]string{true: " (last round)"}[last], throws, g.scores[i], before)
	}
	st := &g.res.Seats[i]
	st.Turns++
	st.Throws += len(throws)
	if !six {
		st.Successes++
	}
}

func (g *game) tracef(format string, args ...any) {
	if g.trace != nil {
		g.trace(fmt.Sprintf(format, args...))
	}
}

func clone(s []int) []int { return append([]int(nil), s...) }
