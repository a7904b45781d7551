package forty

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/kothd/kothd/engine"
)

// remoteGame is one game of a tournament played over the lockstep as a step function
// (engine.Stepper): the rules' step function (game) asks, remoteGame turns each question
// into a call to the seat's bot and its reply into the answer. A slot of the lockstep keeps
// its remoteGame from game to game (reset), so a decision allocates nothing. Its calls'
// arguments write their own packed form and JSON (engine.IntsAppender, engine.JSONAppender) from fields it reuses: a game has one
// call in flight at a time, and the lockstep keeps them untouched until its next step.
type remoteGame struct {
	g      game
	game   int   // its number in the run
	bots   []int // the bot of each seat
	rand   *rand.Rand
	ending bool // the "end" calls are in flight
	over   func(*remoteGame)
	begin  beginArgs
	start  startArgs
	next   nextArgs
}

// deal readies the slot for game number of a run of n bots, k seats, seed its
// game seed: the seating and the dice come from the seed (§3). bots are the run's
// entrants, for the trace only (nil outside replays). over is called with the game's
// result in g.res, and its seating in bots, once the bots have forgotten the game.
func (s *remoteGame) deal(n, k, number int, seed uint64, bots []engine.Entrant, trace func(string), over func(*remoteGame)) {
	r := engine.NewRand(seed)
	order := Seating(r, n, k)
	if trace != nil {
		for i, b := range order {
			trace(fmt.Sprintf("seat %d: %s", i, bots[b].Name))
		}
	}
	s.game, s.bots, s.rand, s.over, s.ending = number, order, r, over, false
	// The result and the seating go to the tally with the game; the rest is the slot's.
	old := s.g
	if old.die == nil || len(old.scores) != k {
		old = *newGame(k, s.die, nil)
	}
	clear(old.scores)
	clear(old.broken)
	clear(old.lost)
	s.g = game{k: k, die: old.die, scores: old.scores, broken: old.broken, lost: old.lost,
		res: GameResult{Seats: make([]SeatStats, k)}, trace: trace, initiator: -1, throws: old.throws[:0]}
}

func (s *remoteGame) die() int { return s.rand.IntN(6) + 1 }

// Step implements engine.Stepper.
func (s *remoteGame) Step(replies []engine.Reply, calls []engine.Call) []engine.Call {
	var q ask
	switch {
	case s.ending:
		s.over(s)
		return calls
	case len(replies) == 0:
		q = s.g.advance()
	default:
		more, died, err := decide(replies[0])
		q = s.g.step(more, err, died)
	}
	seat := s.g.seat
	switch q {
	case askBegin:
		s.begin = beginArgs{Seat: seat}
		return append(calls, engine.Call{Bot: s.bots[seat], Method: "new", Args: &s.begin})
	case askStart:
		// The game's own throws and scores: they stay as they are until the reply.
		s.start = startArgs{Throws: s.g.throws, Scores: s.g.scores, Last: s.g.last}
		return append(calls, engine.Call{Bot: s.bots[seat], Method: "start", Args: &s.start})
	case askNext:
		s.next = nextArgs{Throws: s.g.throws}
		return append(calls, engine.Call{Bot: s.bots[seat], Method: "next", Args: &s.next})
	}
	// The game is over: every bot forgets its instance, in one tick.
	s.ending = true
	for _, b := range s.bots {
		calls = append(calls, engine.Call{Bot: b, Method: "end"})
	}
	return calls
}

// decide reads a bot's reply to a decision: throw again or not, or its fault (died: its
// process, and the instance with it, is gone).
func decide(r engine.Reply) (more, died bool, err error) {
	if r.Fault != nil {
		return false, r.Fault.ProcessDied, r.Fault
	}
	switch {
	case bytes.Equal(r.Result, []byte("true")):
		return true, false, nil
	case bytes.Equal(r.Result, []byte("false")):
		return false, false, nil
	}
	return false, false, &engine.Fault{Outcome: engine.BadOutput, Detail: "harness reply is not a boolean"}
}

// The arguments of the harness's methods (harness.py, Handler.call). The json tags give
// the same encoding through encoding/json, for whoever logs a call.
type beginArgs struct {
	Seat int `json:"seat"`
}

type startArgs struct {
	Throws []int `json:"throws"`
	Scores []int `json:"scores"`
	Last   bool  `json:"last"`
}

type nextArgs struct {
	Throws []int `json:"throws"`
}

func (a *beginArgs) AppendJSON(b []byte) []byte {
	b = append(b, `{"seat":`...)
	b = strconv.AppendInt(b, int64(a.Seat), 10)
	return append(b, '}')
}

func (a *startArgs) AppendJSON(b []byte) []byte {
	b = append(b, `{"throws":`...)
	b = appendInts(b, a.Throws)
	b = append(b, `,"scores":`...)
	b = appendInts(b, a.Scores)
	b = append(b, `,"last":`...)
	b = strconv.AppendBool(b, a.Last)
	return append(b, '}')
}

func (a *nextArgs) AppendJSON(b []byte) []byte {
	b = append(b, `{"throws":`...)
	b = appendInts(b, a.Throws)
	return append(b, '}')
}

// AppendInts gives the packed form (engine.IntsAppender) the harness's Handler.call reads:
// new [seat]; start [last, len(throws), throws…, scores…]; next the throws.
func (a *beginArgs) AppendInts(b []int32) []int32 { return append(b, int32(a.Seat)) }

func (a *startArgs) AppendInts(b []int32) []int32 {
	last := int32(0)
	if a.Last {
		last = 1
	}
	b = append(b, last, int32(len(a.Throws)))
	return appendInt32s(appendInt32s(b, a.Throws), a.Scores)
}

func (a *nextArgs) AppendInts(b []int32) []int32 { return appendInt32s(b, a.Throws) }

func appendInt32s(b []int32, v []int) []int32 {
	for _, x := range v {
		b = append(b, int32(x))
	}
	return b
}

func appendInts(b []byte, v []int) []byte {
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(x), 10)
	}
	return append(b, ']')
}
