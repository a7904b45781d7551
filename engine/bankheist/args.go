package bankheist

import (
	"fmt"
	"strconv"
)

// standing is what every real bot is told about the standings before a game (spec §2.4),
// computed from the real bots in their current list order.
type standing struct {
	rank           []int // by bot index
	mean, mad, top int64
}

func computeStanding(bots []*player, order []int) standing {
	st := standing{rank: make([]int, len(bots))}
	if len(order) == 0 {
		return st
	}
	first := bots[order[0]].credits
	var sum int64
	var s sat
	for pos, i := range order {
		c := bots[i].credits
		if pos == 0 || c == first {
			st.rank[i] = 1
		} else {
			st.rank[i] = pos + 1
		}
		sum = s.add(sum, c)
	}
	n := float64(len(order))
	st.mean = s.trunc(float64(sum) / n)
	var dev int64
	for _, i := range order {
		d := s.sub(bots[i].credits, st.mean)
		if d < 0 {
			d = -d
		}
		dev = s.add(dev, d)
	}
	st.mad = s.trunc(float64(dev) / n)
	st.top = first
	return st
}

// roundInfo is the round-specific part of the argument list (arguments 1–8 and 10).
type roundInfo struct {
	game, round int
	players     int   // arg 3: participants (round 1) or round-1 bettors (round 2)
	asked       int   // arg 4
	bettors     int   // arg 5
	total       int64 // arg 6
	stickers    int   // arg 7
	bank        int   // arg 8
}

// argList builds the 31 command-line arguments of spec §1.3 for player p.
func argList(ri roundInfo, p *player, st standing) []string {
	a := make([]string, 0, 31)
	itoa := strconv.Itoa
	i64 := func(v int64) string { return strconv.FormatInt(v, 10) }
	bet := int64(0)
	if ri.round == 2 {
		bet = p.bet
	}
	employed := "0"
	if p.employed {
		employed = "1"
	}
	a = append(a, itoa(ri.game), itoa(ri.round), itoa(ri.players), itoa(ri.asked),
		itoa(ri.bettors), i64(ri.total), itoa(ri.stickers), itoa(ri.bank),
		i64(p.credits), i64(bet), i64(p.paycheck), employed,
		itoa(st.rank[p.bot]), i64(st.mean), i64(st.mad), i64(st.top))
	for _, v := range p.account {
		a = append(a, i64(v))
	}
	for _, v := range p.prob {
		a = append(a, FormatFloat(v))
	}
	for _, v := range p.odds {
		a = append(a, FormatFloat(v))
	}
	return a
}

// Args is the argument list read back into numbers, for bots written in Go (the example
// strategies, tests).
type Args struct {
	Game, Round    int
	Players, Asked int // args 3 and 4
	Bettors        int
	Total          int64
	Stickers, Bank int
	Credits, Bet   int64
	Paycheck       int64
	Employed       bool
	Rank           int
	Mean, MAD, Max int64
	Account        [banks]int64
	Prob, Odds     [banks]float64
}

// ParseArgs reads the 31 arguments.
func ParseArgs(a []string) (Args, error) {
	var x Args
	if len(a) != 31 {
		return x, fmt.Errorf("want 31 arguments, got %d", len(a))
	}
	var err error
	num := func(i int) int64 {
		v, e := strconv.ParseInt(a[i], 10, 64)
		if e != nil && err == nil {
			err = fmt.Errorf("argument %d: %w", i+1, e)
		}
		return v
	}
	flt := func(i int) float64 {
		v, e := strconv.ParseFloat(a[i], 64)
		if e != nil && err == nil {
			err = fmt.Errorf("argument %d: %w", i+1, e)
		}
		return v
	}
	x.Game, x.Round = int(num(0)), int(num(1))
	x.Players, x.Asked, x.Bettors = int(num(2)), int(num(3)), int(num(4))
	x.Total, x.Stickers, x.Bank = num(5), int(num(6)), int(num(7))
	x.Credits, x.Bet, x.Paycheck = num(8), num(9), num(10)
	x.Employed = num(11) == 1
	x.Rank, x.Mean, x.MAD, x.Max = int(num(12)), num(13), num(14), num(15)
	for k := range banks {
		x.Account[k] = num(16 + k)
		x.Prob[k] = flt(21 + k)
		x.Odds[k] = flt(26 + k)
	}
	return x, err
}
