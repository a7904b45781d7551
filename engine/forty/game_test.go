package forty

import (
	"errors"
	"reflect"
	"testing"

	"github.com/kothd/kothd/engine"
)

// untilSeat throws until the turn's sum reaches target, recording what it was shown.
type untilSeat struct {
	target     int
	sum        int
	seen       [][]int // every current_throws it was given
	lastScores []int
	lastFlag   bool
	failAfter  int // raise on the Nth Next call of a turn (0: never)
	nexts      int
	beginErr   error
	begins     int
}

func (s *untilSeat) Begin(int) error { s.begins++; return s.beginErr }
func (s *untilSeat) Lost() bool      { return false }
func (s *untilSeat) Start(throws, scores []int, last bool) (bool, error) {
	s.lastScores, s.lastFlag, s.nexts = scores, last, 0
	return s.decide(throws)
}
func (s *untilSeat) Next(throws []int) (bool, error) {
	s.nexts++
	if s.failAfter > 0 && s.nexts >= s.failAfter {
		return false, errors.New("IndexError")
	}
	return s.decide(throws)
}
func (s *untilSeat) decide(throws []int) (bool, error) {
	s.seen = append(s.seen, throws)
	sum := 0
	for _, d := range throws {
		sum += d
	}
	return sum < s.target, nil
}

func scripted(t *testing.T, dice ...int) Dice {
	i := 0
	return func() int {
		if i >= len(dice) {
			t.Fatalf("die asked for throw %d, script has %d", i+1, len(dice))
		}
		i++
		return dice[i-1]
	}
}

// playTurn plays the turn of seat 0 of a one-seat game in its first pass, its score
// banked before it, through the rules' step function.
func playTurn(s Seat, banked int, die Dice) *game {
	g := newGame(1, die, nil)
	g.stage, g.scores[0] = stagePass, banked
	for q := g.turn(); q != askNone; q = g.turn() {
		more, err := g.ask(s, q)
		g.answer(more, err, s.Lost())
	}
	return g
}

// §7.1 final-round sequencing, §7.4 arguments seen.
func TestFinalRoundSequencing(t *testing.T) {
	s := []*untilSeat{{target: 10}, {target: 1}, {target: 40}, {target: 99}}
	seats := []Seat{s[0], s[1], s[2], s[3]}
	res := Play(seats, scripted(t, 5, 5, 6, 5, 5, 5, 5, 5, 5, 5, 5, 4, 4, 4, 6, 3, 3, 5, 2))
	scores := []int{res.Seats[0].Score, res.Seats[1].Score, res.Seats[2].Score, res.Seats[3].Score}
	if !reflect.DeepEqual(scores, []int{21, 2, 40, 0}) {
		t.Fatalf("scores = %v, want [21 2 40 0]", scores)
	}
	if res.Passes != 1 || res.Capped {
		t.Errorf("passes = %d capped = %v, want 1 false", res.Passes, res.Capped)
	}
	for i, w := range []bool{false, false, true, false} {
		if res.Seats[i].Won != w {
			t.Errorf("seat %d won = %v, want %v", i, res.Seats[i].Won, w)
		}
	}
	want := []SeatStats{
		{Score: 21, Turns: 2, Throws: 5, Successes: 2},
		{Score: 2, Turns: 2, Throws: 2, Successes: 1},
		{Score: 40, Won: true, Turns: 1, Throws: 8, Successes: 1},
		{Score: 0, Turns: 1, Throws: 4, Successes: 0},
	}
	if !reflect.DeepEqual(res.Seats, want) {
		t.Errorf("stats = %+v\nwant    %+v", res.Seats, want)
	}
	// §7.4: seat 3 saw scores [10 0 40 0], last_round true, then [4], [4 4], [4 4 4].
	if !reflect.DeepEqual(s[3].lastScores, []int{10, 0, 40, 0}) || !s[3].lastFlag {
		t.Errorf("seat 3 got scores %v last %v", s[3].lastScores, s[3].lastFlag)
	}
	if !reflect.DeepEqual(s[3].seen, [][]int{{4}, {4, 4}, {4, 4, 4}}) {
		t.Errorf("seat 3 saw %v", s[3].seen)
	}
	if len(s[1].seen) != 1 { // turn 2 began with a 6: make_throw not called
		t.Errorf("seat 1 was asked %d times, want 1 (only in its second turn)", len(s[1].seen))
	}
}

// §7.2: the 40 reset and its absence below 40.
func TestReset(t *testing.T) {
	cases := []struct {
		banked int
		dice   []int
		target int
		want   int
	}{
		{35, []int{3, 4, 6}, 99, 0},
		{30, []int{4, 6}, 99, 30},
		{33, []int{6}, 99, 33},
		{35, []int{5}, 1, 40},
	}
	for _, c := range cases {
		g := playTurn(&untilSeat{target: c.target}, c.banked, scripted(t, c.dice...))
		if g.scores[0] != c.want {
			t.Errorf("banked %d throws %v: got %d, want %d", c.banked, c.dice, g.scores[0], c.want)
		}
	}
}

// §7.3: nobody reaches 40 in 200 passes: every seat plays once more, highest wins.
func TestPassCap(t *testing.T) {
	n := 0
	die := func() int { n++; return 6 } // every turn ends at once; nobody scores
	seats := []Seat{&untilSeat{target: 99}, &untilSeat{target: 99}, &untilSeat{target: 99}}
	res := Play(seats, die)
	if res.Passes != maxPasses || !res.Capped {
		t.Fatalf("passes %d capped %v", res.Passes, res.Capped)
	}
	for i, s := range res.Seats {
		if s.Turns != maxPasses+1 {
			t.Errorf("seat %d played %d turns, want %d (cap + the final one)", i, s.Turns, maxPasses+1)
		}
		if !s.Won { // all 0: every seat wins (§7.5)
			t.Errorf("seat %d did not win an all-zero game", i)
		}
	}
	if n != 3*(maxPasses+1) {
		t.Errorf("die thrown %d times", n)
	}
}

// §7.6: an exception after the first yield True banks the throws made so far.
func TestExceptionBanksTurn(t *testing.T) {
	s := &untilSeat{target: 99, failAfter: 1}
	g := playTurn(s, 0, scripted(t, 3, 4))
	if g.scores[0] != 7 || g.res.Seats[0].Errors != 1 {
		t.Fatalf("score %d errors %d, want 7 and 1", g.scores[0], g.res.Seats[0].Errors)
	}
	// If the second throw is a 6 the turn ends before the bot is asked again: no error.
	s2 := &untilSeat{target: 99, failAfter: 1}
	g2 := playTurn(s2, 0, scripted(t, 3, 6))
	if g2.scores[0] != 0 || g2.res.Seats[0].Errors != 0 {
		t.Fatalf("score %d errors %d, want 0 and 0", g2.scores[0], g2.res.Seats[0].Errors)
	}
}

// §4: a constructor exception: automatic throw then stop, one error per game.
func TestConstructorFault(t *testing.T) {
	bad := &untilSeat{target: 99, beginErr: errors.New("TypeError")}
	good := &untilSeat{target: 40}
	res := Play([]Seat{bad, good}, scripted(t, 2, 5, 5, 5, 5, 5, 5, 5, 5, 3))
	if res.Seats[0].Errors != 1 || res.Seats[0].Score != 5 || res.Seats[0].Throws != 2 {
		t.Fatalf("broken seat: %+v", res.Seats[0])
	}
	if len(bad.seen) != 0 {
		t.Errorf("a broken instance was asked to decide")
	}
}

// A host fault voids the game instead of scoring it.
func TestHostFaultVoids(t *testing.T) {
	bad := &untilSeat{target: 99, beginErr: &engine.Fault{Outcome: engine.HostFault}}
	res := Play([]Seat{bad, &untilSeat{target: 10}}, func() int { return 1 })
	if !res.Void {
		t.Fatal("game not voided")
	}
}

// §7.5 ties.
func TestTies(t *testing.T) {
	seats := []Seat{&untilSeat{target: 1}, &untilSeat{target: 1}}
	res := Play(seats, scripted(t, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4))
	if !res.Seats[0].Won || !res.Seats[1].Won {
		t.Fatalf("tie not shared: %+v", res.Seats)
	}
}
