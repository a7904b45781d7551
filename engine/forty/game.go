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

// PlayTraced is Play that reports every turn to trace (nil: no trace). It drives the
// rules' step function (game) with the seats' answers, one decision at a time; a
// tournament drives the same step function from the lockstep's ticks (remote.go's
// remoteGame). Each seat gets its own copy of throws and scores: a Seat may keep them.
func PlayTraced(seats []Seat, die Dice, trace func(string)) GameResult {
	g := newGame(len(seats), die, trace)
	for q := g.advance(); q != askNone; {
		s := seats[g.seat]
		more, err := g.ask(s, q)
		q = g.step(more, err, s.Lost())
	}
	return g.res
}

// ask asks seat s (the one at g.seat) decision q.
func (g *game) ask(s Seat, q ask) (more bool, err error) {
	switch q {
	case askBegin:
		err = s.Begin(g.seat)
	case askStart:
		more, err = s.Start(clone(g.throws), clone(g.scores), g.last)
	case askNext:
		more, err = s.Next(clone(g.throws))
	}
	return more, err
}

// ask is the decision a game waits for.
type ask uint8

const (
	askNone  ask = iota // none: the game is over (or, from turn, the turn is)
	askBegin            // Begin(seat): create the bot's instance
	askStart            // Start(throws, scores, last): the first decision of a turn
	askNext             // Next(throws): the turn's next decision
)

// stage is where a game stands between turns (§2.3).
type stage uint8

const (
	stageBegin stage = iota // creating each seat's instance, seat by seat
	stagePass               // the passes of the main loop, seat by seat
	stageFinal              // the final round's turns of the seats before its initiator
	stageOver
)

// phase is where the current turn stands (§2.2).
type phase uint8

const (
	phaseNone   phase = iota // no turn under way: the next begins at seat
	phaseThrow               // about to throw the turn's first die
	phaseDecide              // waiting for the bot's Start or Next (pending says which)
	phaseScore               // the turn's throws are done: bank them
)

// game is one game of the rules as a step function: advance runs them until they need a
// bot's decision and says which; step hands back the bot's answer and advances again.
// Nothing in it waits: a driver (PlayTraced, or the lockstep's remoteGame) fetches each
// decision its own way. Its seat, throws, scores and last describe the decision asked.
type game struct {
	k      int
	die    Dice
	scores []int
	broken []bool // constructor raised: automatic throw, then stop (§4)
	lost   []bool // the seat's instance is gone (its process died): Begin again before its turn
	res    GameResult
	trace  func(string)

	stage     stage
	seat      int  // the seat being begun, or whose turn it is
	last      bool // the turn under way is in the last round
	initiator int  // the seat whose 40 started the last round; k when the cap did
	phase     phase
	pending   ask   // the decision asked
	throws    []int // the turn's throws, reused from turn to turn
}

func newGame(k int, die Dice, trace func(string)) *game {
	return &game{k: k, die: die, scores: make([]int, k), broken: make([]bool, k), lost: make([]bool, k),
		res: GameResult{Seats: make([]SeatStats, k)}, trace: trace, initiator: -1}
}

// step answers the decision asked (more: throw again; err: the bot's fault, or the host's;
// died: the seat's instance is gone after it) and advances to the next.
func (g *game) step(more bool, err error, died bool) ask {
	g.answer(more, err, died)
	return g.advance()
}

// advance runs the rules from where the game stands until they need a decision and
// returns it, or askNone once the game is over (g.res then holds its result).
func (g *game) advance() ask {
	for {
		switch g.stage {
		case stageBegin:
			if g.seat < g.k {
				g.pending = askBegin
				return askBegin
			}
			g.stage, g.seat = stagePass, 0
			if g.res.Void {
				g.stage = stageFinal
			}
		case stagePass:
			if g.seat == g.k { // the pass is over
				g.res.Passes++
				if g.res.Passes >= maxPasses {
					g.last, g.initiator, g.res.Capped = true, g.k, true
				}
				g.seat = 0
				if g.last || g.res.Void {
					g.stage = stageFinal
				}
				continue
			}
			if q := g.turn(); q != askNone {
				return q
			}
			if !g.last && g.scores[g.seat] >= endScore {
				g.last, g.initiator = true, g.seat
			}
			g.seat++
		case stageFinal:
			// The loop's test is made between turns only: a turn the host voided is played out.
			if g.phase == phaseNone && (g.seat >= g.initiator || g.res.Void) {
				g.finish()
				g.stage = stageOver
				continue
			}
			if q := g.turn(); q != askNone { // g.last is true: only a 40 or the cap leads here
				return q
			}
			g.seat++
		case stageOver:
			return askNone
		}
	}
}

// turn plays (or goes on with) seat g.seat's turn (§2.2) until it needs a decision, which
// it returns; askNone once the turn is over.
func (g *game) turn() ask {
	i := g.seat
	for {
		switch g.phase {
		case phaseNone:
			if g.res.Void {
				return askNone
			}
			g.phase = phaseThrow
			if g.lost[i] && !g.broken[i] {
				g.pending = askBegin
				return askBegin
			}
		case phaseThrow:
			g.throws = append(g.throws[:0], g.die())
			if g.throws[0] == 6 || g.broken[i] {
				g.phase = phaseScore
				continue
			}
			g.phase, g.pending = phaseDecide, askStart
			return askStart
		case phaseDecide: // answer has set pending to the next decision
			return g.pending
		case phaseScore:
			g.bank(i)
			g.phase = phaseNone
			return askNone
		}
	}
}

// answer applies the bot's answer to the decision asked (see step).
func (g *game) answer(more bool, err error, died bool) {
	i := g.seat
	switch g.pending {
	case askBegin: // a new instance: lost only if this very call lost it
		g.lost[i] = died
		g.broken[i] = err != nil
		if err != nil {
			g.fault(i, err)
		}
		if g.stage == stageBegin {
			g.seat++
		} // else the turn goes on to its first throw (phaseThrow)
	case askStart, askNext:
		g.lost[i] = g.lost[i] || died
		switch {
		case err != nil:
			g.fault(i, err)
			g.tracef("  seat %d fault: %v", i, err)
			g.phase = phaseScore
		case !more:
			g.phase = phaseScore
		default:
			d := g.die()
			g.throws = append(g.throws, d)
			if d == 6 {
				g.phase = phaseScore
			} else {
				g.pending = askNext
			}
		}
	}
}

// fault records a bot error, or voids the game when the host is at fault.
func (g *game) fault(i int, err error) {
	if f, ok := err.(*engine.Fault); ok && f.Outcome == engine.HostFault {
		g.res.Void = true
		return
	}
	g.res.Seats[i].Errors++
}

// bank ends seat i's turn: its throws are scored (§2.2) and counted.
func (g *game) bank(i int) {
	throws := g.throws
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
		g.tracef("pass %d, seat %d%s: throws %v → %d (was %d)", g.res.Passes+1, i, map[bool]string{true: " (last round)"}[g.last], throws, g.scores[i], before)
	}
	st := &g.res.Seats[i]
	st.Turns++
	st.Throws += len(throws)
	if !six {
		st.Successes++
	}
}

// finish sets the scores and the winners (§2.4, §7.5).
func (g *game) finish() {
	best := 0
	for i := range g.k {
		g.res.Seats[i].Score = g.scores[i]
		best = max(best, g.scores[i])
	}
	g.res.Max = best
	for i := range g.k {
		g.res.Seats[i].Won = g.scores[i] == best
	}
}

func (g *game) tracef(format string, args ...any) {
	if g.trace != nil {
		g.trace(fmt.Sprintf(format, args...))
	}
}

func clone(s []int) []int { return append([]int(nil), s...) }
