package forty

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/kothd/kothd/engine"
)

// The rules of one game as they were first written (the goroutine-per-game engine, main
// at 7421068): straight-line code that calls its seats and blocks on each decision. The
// step function (game.go) is the engine now; this is the yardstick it is held to
// (TestStepFunctionPlaysAsTheRules), kept verbatim but for its names.

// refPlay is the former PlayTraced.
func refPlay(seats []Seat, die Dice, trace func(string)) GameResult {
	k := len(seats)
	g := &refGame{seats: seats, die: die, scores: make([]int, k), res: GameResult{Seats: make([]SeatStats, k)}, broken: make([]bool, k), trace: trace}
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

type refGame struct {
	seats  []Seat
	die    Dice
	scores []int
	broken []bool // constructor raised: automatic throw, then stop (§4)
	res    GameResult
	trace  func(string)
}

// begin creates seat i's instance; a constructor fault costs one error for the game.
func (g *refGame) begin(i int) {
	if err := g.seats[i].Begin(i); err != nil {
		g.fault(i, err)
		g.broken[i] = true
		return
	}
	g.broken[i] = false
}

// fault records a bot error, or voids the game when the host is at fault.
func (g *refGame) fault(i int, err error) {
	if f, ok := err.(*engine.Fault); ok && f.Outcome == engine.HostFault {
		g.res.Void = true
		return
	}
	g.res.Seats[i].Errors++
}

// turn plays seat i's turn (§2.2).
func (g *refGame) turn(i int, last bool) {
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

func (g *refGame) tracef(format string, args ...any) {
	if g.trace != nil {
		g.trace(fmt.Sprintf(format, args...))
	}
}

// randSeat is a Seat that decides, faults, loses its instance and meets host faults at
// random, from its own stream: given the same calls it answers the same. It logs every
// call with its arguments, and keeps Lost as the lockstep's bots do (reset by Begin, set
// by a fault that ended the process).
type randSeat struct {
	r    *rand.Rand
	log  []string
	lost bool
}

func (s *randSeat) fail() error {
	switch s.r.IntN(60) {
	case 0:
		s.lost = true
		return &engine.Fault{Outcome: engine.Crash, ProcessDied: true}
	case 1, 2:
		return &engine.Fault{Outcome: engine.Timeout}
	case 3:
		if s.r.IntN(8) == 0 {
			return &engine.Fault{Outcome: engine.HostFault}
		}
	}
	return nil
}

func (s *randSeat) Begin(seat int) error {
	s.log = append(s.log, fmt.Sprintf("new %d", seat))
	s.lost = false
	return s.fail()
}

func (s *randSeat) Start(throws, scores []int, last bool) (bool, error) {
	s.log = append(s.log, fmt.Sprintf("start %v %v %v", throws, scores, last))
	return s.r.IntN(3) != 0, s.fail()
}

func (s *randSeat) Next(throws []int) (bool, error) {
	s.log = append(s.log, fmt.Sprintf("next %v", throws))
	return s.r.IntN(3) != 0, s.fail()
}

func (s *randSeat) Lost() bool { return s.lost }

// The step function plays every game as the rules as first written do: the same result,
// the same calls with the same arguments to every seat, the same trace, over thousands of
// random games with bots that fault, lose their process and meet host faults; games of 2
// to 8 seats, some so long that the pass cap ends them.
func TestStepFunctionPlaysAsTheRules(t *testing.T) {
	voids, capped, lost := 0, 0, 0
	for game := range 3000 {
		k := 2 + game%7
		play := func(f func([]Seat, Dice, func(string)) GameResult) (GameResult, [][]string, []string) {
			r := rand.New(rand.NewPCG(uint64(game), 1))
			seats := make([]Seat, k)
			for i := range seats {
				seats[i] = &randSeat{r: rand.New(rand.NewPCG(uint64(game), uint64(i)+2))}
			}
			die := func() int { return r.IntN(6) + 1 }
			if game%100 == 99 { // nobody scores: the cap ends the game
				die = func() int { return 6 }
			}
			var trace []string
			res := f(seats, die, func(s string) { trace = append(trace, s) })
			var logs [][]string
			for _, s := range seats {
				logs = append(logs, s.(*randSeat).log)
			}
			return res, logs, trace
		}
		want, wantLogs, wantTrace := play(refPlay)
		got, gotLogs, gotTrace := play(PlayTraced)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("game %d: result %+v, the rules give %+v", game, got, want)
		}
		if !reflect.DeepEqual(gotLogs, wantLogs) {
			t.Fatalf("game %d: the seats were asked\n%q\nthe rules ask\n%q", game, gotLogs, wantLogs)
		}
		if !reflect.DeepEqual(gotTrace, wantTrace) {
			t.Fatalf("game %d: trace\n%q\nthe rules trace\n%q", game, gotTrace, wantTrace)
		}
		if want.Void {
			voids++
		}
		if want.Capped {
			capped++
		}
		for _, l := range wantLogs {
			news := 0
			for _, c := range l {
				if strings.HasPrefix(c, "new") {
					news++
				}
			}
			if news > 1 {
				lost++
			}
		}
	}
	// The paths that matter were taken.
	if voids < 30 || capped < 10 || lost < 100 {
		t.Errorf("%d voided, %d capped games, %d instances begun again: the random bots do not reach every path", voids, capped, lost)
	}
}
