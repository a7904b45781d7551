package bankheist

import (
	"strings"
	"testing"
)

// script is a generator whose draws the test dictates, so the spec's worked examples
// (§7, verified against the original with scripted draws) can be replayed exactly.
type script struct {
	t      *testing.T
	floats []float64
	ints   []int // values returned by IntN, in order
}

func (s *script) Float64() float64 {
	s.t.Helper()
	if len(s.floats) == 0 {
		s.t.Fatal("unexpected Float64 draw")
	}
	u := s.floats[0]
	s.floats = s.floats[1:]
	return u
}

func (s *script) IntN(n int) int {
	s.t.Helper()
	if len(s.ints) == 0 {
		s.t.Fatalf("unexpected IntN(%d) draw", n)
	}
	v := s.ints[0]
	s.ints = s.ints[1:]
	if v < 0 || v >= n {
		s.t.Fatalf("scripted IntN value %d outside [0, %d)", v, n)
	}
	return v
}

func (s *script) Shuffle(n int, _ func(i, j int)) {
	if n > 1 {
		s.t.Fatalf("unexpected shuffle of %d", n)
	}
}

func (s *script) done() {
	s.t.Helper()
	if len(s.floats)+len(s.ints) > 0 {
		s.t.Fatalf("draws left unused: %v %v", s.floats, s.ints)
	}
}

// seat is one participant of a scripted game; real bettors are listed in round-2 order.
type seat struct {
	credits  int64
	bet      int64
	decision string // "" for a non-bettor
}

// playScripted resolves and pays one game whose participants are real bots seated in the
// given (game and round-2) order, and returns the players.
func playScripted(t *testing.T, bank int, seats []seat, rng *script) []*player {
	t.Helper()
	g := &game{rng: rng, sat: &sat{}, bank: bank}
	bettors, stickers := 0, 0
	for i, s := range seats {
		p := newPlayer(i)
		p.credits, p.bet = s.credits, s.bet
		g.parts = append(g.parts, p)
		if s.decision == "" {
			continue
		}
		p.decision = s.decision
		bettors++
		if s.decision == BackOut {
			p.bet = 0
			continue
		}
		stickers++
		g.rs = append(g.rs, p)
		if s.decision == DoubleCross {
			g.dc = append(g.dc, p)
		}
	}
	g.settle(bettors, stickers)
	g.resolve()
	g.pay()
	rng.done()
	return g.parts
}

func credits(ps []*player) []int64 {
	var out []int64
	for _, p := range ps {
		out = append(out, p.credits)
	}
	return out
}

func wantCredits(t *testing.T, ps []*player, want ...int64) {
	t.Helper()
	got := credits(ps)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("credits = %v, want %v", got, want)
		}
	}
}

func TestBankSelection(t *testing.T) { // §7.1
	for _, c := range []struct {
		b    int
		t    int64
		want int
	}{{0, 0, 0}, {19, 99999, 0}, {19, 100000, 1}, {30, 2050000, 2}, {59, 150000, 3}, {75, 1000000, 4}, {100, 0, 4}} {
		if got := bankIndex(c.b, c.t); got != c.want {
			t.Errorf("bankIndex(%d, %d) = %d, want %d", c.b, c.t, got, c.want)
		}
	}
}

func TestStatistics(t *testing.T) { // §7.2
	var bots []*player
	for i, c := range []int64{500, 500, 300, 300, 100} {
		p := newPlayer(i)
		p.credits = c
		bots = append(bots, p)
	}
	st := computeStanding(bots, []int{0, 1, 2, 3, 4})
	want := []int{1, 1, 3, 4, 5}
	for i := range want {
		if st.rank[i] != want[i] {
			t.Fatalf("ranks %v, want %v", st.rank, want)
		}
	}
	if st.mean != 340 || st.mad != 128 || st.top != 500 {
		t.Fatalf("mean %d MAD %d max %d, want 340 128 500", st.mean, st.mad, st.top)
	}
}

func TestStraightWin(t *testing.T) { // §7.3 and §7.4, the rounding trap
	ps := playScripted(t, 1, []seat{{1000, 100, rabbleStick}}, &script{t: t, floats: []float64{0.1}})
	wantCredits(t, ps, 1350)
	ps = playScripted(t, 2, []seat{{1000, 100, rabbleStick}}, &script{t: t, floats: []float64{0.1}})
	wantCredits(t, ps, 1369)
}

func TestAllIn(t *testing.T) { // §7.5
	ps := playScripted(t, 0, []seat{{500, 1, AllIn}, {500, 0, ""}}, &script{t: t, floats: []float64{0.5, 0.7}})
	wantCredits(t, ps, 592, 740)
}

func TestCollapse(t *testing.T) { // §7.6
	for _, u := range []float64{0.0, 0.99} {
		ps := playScripted(t, 0, []seat{{240, 50, "!guncheck"}, {240, 70, BackOut}, {240, 10, AllIn}},
			&script{t: t, floats: []float64{u, u, 0.0}})
		wantCredits(t, ps, 430, 240, 384)
	}
}

func TestOneDoubleCrosserSucceeds(t *testing.T) { // §7.7
	ps := playScripted(t, 0, []seat{{240, 10, DoubleCross}, {240, 100, "!guncheck"}, {240, 50, "!guncheck"}},
		&script{t: t, floats: []float64{0.1, 0.1, 0.1}})
	wantCredits(t, ps, 776, 380, 430)
}

func TestTwoDoubleCrossersFail(t *testing.T) { // §7.8
	ps := playScripted(t, 0, []seat{
		{240, 10, DoubleCross}, {240, 20, DoubleCross}, {240, 100, "!guncheck"}, {240, 50, "!guncheck"}, {240, 30, "!guncheck"},
	}, &script{t: t, floats: []float64{0.1, 0.1, 0.1, 0.1, 0.9}, ints: []int{0, 19}}) // rehire draws 1 and 20
	wantCredits(t, ps, 230, 346, 740, 610, 450)
	if ps[0].paycheck != 120 || ps[0].employed || ps[1].paycheck != 126 || !ps[1].employed {
		t.Fatalf("paychecks %d %d, employed %v %v", ps[0].paycheck, ps[1].paycheck, ps[0].employed, ps[1].employed)
	}
}

func TestFingerHits(t *testing.T) { // §7.9
	// RS in round-2 order F, X, S; the 4th pick (index 1) is X.
	ps := playScripted(t, 0, []seat{{300, 30, Finger}, {600, 60, DoubleCross}, {300, 100, "!guncheck"}},
		&script{t: t, floats: []float64{0.1, 0.1, 0.1}, ints: []int{0, 2, 0, 1, 1, 0, 2, 1, 4}})
	wantCredits(t, ps, 664, 440, 620)
	if x := ps[1]; FormatFloat(x.prob[0]) != "0.49" || x.paycheck != 120 || x.employed {
		t.Fatalf("X: prob %v paycheck %d employed %v", x.prob[0], x.paycheck, x.employed)
	}
}

func TestFingerMisses(t *testing.T) { // §7.10
	ps := playScripted(t, 0, []seat{{300, 30, Finger}, {600, 60, "!guncheck"}, {300, 100, "!guncheck"}},
		&script{t: t, floats: []float64{0.1, 0.1, 0.1}, ints: []int{0, 1, 2, 0, 1, 2, 0, 1}})
	wantCredits(t, ps, 552, 996, 800)
	if f := ps[0]; f.odds[0] != 0.8-0.05 || f.paycheck != 228 {
		t.Fatalf("F: odds %v paycheck %d", f.odds[0], f.paycheck)
	}
}

func TestDepositIntelGuard(t *testing.T) { // §7.11
	ps := playScripted(t, 1, []seat{{1000, 100, Deposit}}, &script{t: t, floats: []float64{0.1}})
	wantCredits(t, ps, 1140)
	if ps[0].account[1] != 212 {
		t.Fatalf("account %d, want 212", ps[0].account[1])
	}
	ps = playScripted(t, 1, []seat{{1000, 100, Intel}}, &script{t: t, floats: []float64{0.1}})
	wantCredits(t, ps, 1140)
	if ps[0].odds[1] != 1.1+0.00001*210 || FormatFloat(ps[0].odds[1]) != "1.1021" {
		t.Fatalf("odds %v", ps[0].odds[1])
	}
	ps = playScripted(t, 1, []seat{{1000, 100, Guard}}, &script{t: t, floats: []float64{0.9}})
	wantCredits(t, ps, 1139)
	if FormatFloat(ps[0].prob[1]) != "0.49312" || len(ps[0].bribes) != 1 {
		t.Fatalf("prob %v bribes %v", ps[0].prob[1], ps[0].bribes)
	}
}

func TestWithdraw(t *testing.T) { // §7.12
	g := &game{rng: &script{t: t, floats: []float64{0.1}}, sat: &sat{}, bank: 1}
	p := newPlayer(0)
	p.credits, p.bet, p.decision, p.account[1] = 1140, 100, Withdraw, 1000
	g.parts, g.rs = []*player{p}, []*player{p}
	g.settle(1, 1)
	g.resolve()
	g.pay()
	if p.credits != 2490 || p.account[1] != 0 {
		t.Fatalf("credits %d account %d, want 2490 0", p.credits, p.account[1])
	}
}

func TestArgumentText(t *testing.T) { // §7.13 and §1.3
	p := newPlayer(0)
	p.prob[0] += 0.01 * (1 - p.prob[0])
	p.odds[1] -= 0.05
	p.odds[1] -= 0.05
	p.odds[0] += 0.00001 * 6969
	st := computeStanding([]*player{p}, []int{0})
	got := strings.Join(argList(roundInfo{game: 0, round: 1, players: 396, asked: 209, bettors: 88, total: 5846, bank: 4}, p, st), " ")
	want := "0 1 396 209 88 5846 0 4 240 0 240 1 1 240 0 240 0 0 0 0 0 0.5446 0.488 0.425 0.387 0.324 0.86969 1.0 1.3 1.65 1.95"
	if got != want {
		t.Fatalf("args\n got %s\nwant %s", got, want)
	}
	// The recorded first call of a tournament (§1.3), from a fresh player.
	p = newPlayer(0)
	got = strings.Join(argList(roundInfo{game: 0, round: 1, players: 396, asked: 209, bettors: 88, total: 5846, bank: 4}, p, st), " ")
	want = "0 1 396 209 88 5846 0 4 240 0 240 1 1 240 0 240 0 0 0 0 0 0.54 0.488 0.425 0.387 0.324 0.8 1.1 1.3 1.65 1.95"
	if got != want {
		t.Fatalf("args\n got %s\nwant %s", got, want)
	}
	// Round 2: argument 10 is the own bet; 3 and 5 the number of bettors.
	p.bet, p.employed = 69, false
	got = strings.Join(argList(roundInfo{game: 7, round: 2, players: 12, asked: 3, bettors: 12, total: 999, stickers: 2, bank: 0}, p, st)[:12], " ")
	if want = "7 2 12 3 12 999 2 0 240 69 240 0"; got != want {
		t.Fatalf("round-2 args %q, want %q", got, want)
	}
}

func TestRabble(t *testing.T) { // §7.14 and §5.2
	for _, c := range []struct {
		u    float64
		want string
	}{{0.17, BackOut}, {0.18, rabbleStick}} {
		if got := rabbleRound2(4, 3, &script{t: t, floats: []float64{c.u}}); got != c.want {
			t.Errorf("rabble i=4 S=3 u=%v: %q, want %q", c.u, got, c.want)
		}
	}
	s := &script{t: t}
	if got := rabbleRound2(0, 0, s); got != rabbleStick {
		t.Errorf("first rabble bettor: %q", got)
	}
	s.done() // no draw consumed
	for _, c := range []struct {
		credits, want int64
	}{{0, 0}, {50, 50}, {420, 69}, {421, 420}, {6969, 420}, {6970, 6969}, {80086, 80085}} {
		p := newPlayer(-1)
		p.credits = c.credits
		if got := rabbleRound1(p, 0, &script{t: t, floats: []float64{0.54}}); got != c.want {
			t.Errorf("rabble with %d credits bets %d, want %d", c.credits, got, c.want)
		}
	}
	p := newPlayer(-1)
	if got := rabbleRound1(p, 4, &script{t: t, floats: []float64{0.3241}}); got != 0 {
		t.Errorf("rabble bet %d above its probability", got)
	}
}

func TestBribesUnpaid(t *testing.T) { // §2.10 step 6
	g := &game{rng: &script{t: t}, sat: &sat{}}
	p := newPlayer(0)
	p.credits = 0
	p.prob[2] += 0.01 * (1 - p.prob[2])
	p.bribes = []int{2}
	g.payBribes(p)
	if p.credits != 0 || len(p.bribes) != 0 || FormatFloat(p.prob[2]) != "0.425" {
		t.Fatalf("credits %d bribes %v prob %v", p.credits, p.bribes, p.prob[2])
	}
}
