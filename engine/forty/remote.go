package forty

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"unsafe"

	"github.com/kothd/kothd/engine"
)

// remoteGame is one game of a tournament played over the lockstep as a step function
// (engine.Stepper): the rules' step function (game) asks, remoteGame turns each question
// into a call to the seat's bot and its reply into the answer. A slot of the lockstep keeps
// its remoteGame from game to game (reset), so a decision allocates nothing. Its calls'
// arguments write their own packed form and JSON (engine.IntsAppender, engine.JSONAppender)
// from fields it reuses: a game has one call in flight at a time, and the lockstep keeps
// them untouched until its next step.
//
// A run keeps 32768 games in flight: each tick steps every slot once, long after the
// others have pushed it out of the caches, so a decision costs what the memory it touches
// costs, one trip to memory after the other. The game's state therefore lives in the slot
// itself (its scores, throws, seats' bots and the dice to come: inline arrays, not
// allocations scattered over the heap), the fields a step reads first, ahead of hot; the
// lockstep prefetches that part a few games ahead of the one it steps (Prefetch), and the
// pyclass wire the arguments of the calls it is about to encode, so that the loads of
// several games are in flight at once.
type remoteGame struct {
	// hot: what a step and the encoding of its call read.
	g      game
	ending bool // the "end" calls are in flight
	ndice  uint8
	dice   [diceAhead]uint8 // the game's next dice, dice[ndice:] not yet thrown
	game   int              // its number in the run
	over   func(*remoteGame)
	bots   [maxSeats]int // the bot of each seat
	begin  beginArgs
	start  startArgs
	next   nextArgs
	// The backing arrays of g's slices (k <= maxSeats). A turn longer than throwsBuf
	// moves its throws to the heap, where the slot keeps them for its next games.
	throwsBuf [16]int
	scoresBuf [maxSeats]int
	brokenBuf [maxSeats]bool
	lostBuf   [maxSeats]bool
	hot       struct{} // the end of the part Prefetch loads

	seatsBuf [maxSeats]SeatStats // g.res.Seats while the game is played: see result
	seating  []int               // bots[:k], the fold's own
	rand     *rand.Rand          // the game's draws: seating, then dice
	src      rand.ChaCha8        // rand's source, reseeded for each game
}

// maxSeats is the most seats a game has (GroupSize); diceAhead how many dice a slot draws
// at a time. The dice are the generator's draws in the same order whenever they are drawn:
// only the game throws them, and none is shown before it is thrown.
const (
	maxSeats  = 8
	diceAhead = 16
)

// deal readies the slot for game number of a run of n bots, k seats, seed its
// game seed: the seating and the dice come from the seed (§3). bots are the run's
// entrants, for the trace only (nil outside replays). over is called with the game's
// result in g.res, and its seating in bots, once the bots have forgotten the game.
func (s *remoteGame) deal(n, k, number int, seed uint64, bots []engine.Entrant, trace func(string), over func(*remoteGame)) {
	if k > maxSeats {
		panic(fmt.Sprintf("forty: %d seats (at most %d)", k, maxSeats))
	}
	if s.rand == nil {
		s.rand = rand.New(&s.src)
	}
	engine.SeedRand(&s.src, seed) // the draws of engine.NewRand(seed)
	order := Seating(s.rand, n, k)
	if trace != nil {
		for i, b := range order {
			trace(fmt.Sprintf("seat %d: %s", i, bots[b].Name))
		}
	}
	s.game, s.seating, s.over, s.ending, s.ndice = number, order, over, false, diceAhead
	copy(s.bots[:], order)
	die, throws := s.g.die, s.g.throws[:0]
	if die == nil {
		die, throws = s.die, s.throwsBuf[:0]
	}
	s.scoresBuf, s.brokenBuf, s.lostBuf, s.seatsBuf = [maxSeats]int{}, [maxSeats]bool{}, [maxSeats]bool{}, [maxSeats]SeatStats{}
	s.g = game{k: k, die: die, scores: s.scoresBuf[:k:k], broken: s.brokenBuf[:k:k], lost: s.lostBuf[:k:k],
		res: GameResult{Seats: s.seatsBuf[:k:k]}, trace: trace, initiator: -1, throws: throws}
}

// Prefetch implements engine.Prefetcher: the hot part of the slot.
func (s *remoteGame) Prefetch() {
	engine.PrefetchRange(unsafe.Pointer(s), unsafe.Offsetof(s.hot))
}

// The arguments' Prefetch (engine.Prefetcher, for the runner that encodes them): the
// arguments and the lines of their slot that hold what they point to (the throws' first
// eight, the scores), no more.
func (a *beginArgs) Prefetch() { engine.Prefetch(unsafe.Pointer(a)) }

func (a *startArgs) Prefetch() {
	engine.PrefetchRange(unsafe.Pointer(a), unsafe.Sizeof(*a))
	slot := uintptr(unsafe.Pointer(a)) - unsafe.Offsetof(remoteGame{}.start)
	engine.PrefetchAt(slot + argsToThrows)
	engine.PrefetchAt(slot + argsToScores)
}

func (a *nextArgs) Prefetch() {
	engine.Prefetch(unsafe.Pointer(a))
	engine.PrefetchAt(uintptr(unsafe.Pointer(a)) - unsafe.Offsetof(remoteGame{}.next) + argsToThrows)
}

// The offsets in a slot of its throws and scores (the arguments' Prefetch reckons from
// them; an argument outside a slot, as tests make them, only prefetches memory it does
// not read).
const (
	argsToThrows = unsafe.Offsetof(remoteGame{}.throwsBuf)
	argsToScores = unsafe.Offsetof(remoteGame{}.scoresBuf)
)

// result is the game's result once it is over, its own: the slot's seat statistics are
// the next game's.
func (s *remoteGame) result() GameResult {
	res := s.g.res
	res.Seats = slices.Clone(res.Seats)
	return res
}

// die throws the game's next die, drawing diceAhead at a time (the draws of one at a
// time, in the same order).
func (s *remoteGame) die() int {
	if s.ndice == diceAhead {
		for i := range s.dice {
			s.dice[i] = uint8(s.rand.IntN(6) + 1)
		}
		s.ndice = 0
	}
	d := s.dice[s.ndice]
	s.ndice++
	return int(d)
}

// Step implements engine.Stepper.
func (s *remoteGame) Step(replies []engine.Reply, calls []engine.Call) []engine.Call {
	var q ask
	switch {
	case s.ending:
		return calls // the game is over (End)
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
	for _, b := range s.bots[:s.g.k] {
		calls = append(calls, engine.Call{Bot: b, Method: "end"})
	}
	return calls
}

// End implements engine.Ender: the game's result and its slot go to the run.
func (s *remoteGame) End() { s.over(s) }

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
