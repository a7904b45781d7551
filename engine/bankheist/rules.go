package bankheist

// This file holds the rules of one game after the bets and decisions are known: bank
// selection, resolution of every heist, the pot, and payment (spec §2.7, §2.9, §2.10).
// The order of operations, and the order of random draws, are the original controller's.

// Constants of the rules (spec §2.1).
const (
	startCredits  = 240
	startPaycheck = 240
	rabbleSize    = 500
	paydayLoan    = 240 // added to an all-in player's credits before the odds apply
	interestRate  = 0.014
	fingerDraws   = 8
	fingerPenalty = 0.05
	guardBonus    = 0.01
	intelPerCred  = 0.00001
	rehireChance  = 20 // one in 20
	fingerShare   = 6  // a fingered double-crosser pays floor(credits / 6)
	bankDivisor   = 100000
	bankStep      = 20
	banks         = 5
)

// BankNames are the five banks in index order.
var BankNames = [banks]string{"Municipal", "City", "State", "National", "Federal Reserve"}

var (
	baseProb = [banks]float64{0.54, 0.488, 0.425, 0.387, 0.324}
	baseOdds = [banks]float64{0.80, 1.10, 1.30, 1.65, 1.95}
)

// The round-2 answers with an effect; any other text means "stick" (spec §1.4).
const (
	BackOut     = "back out"
	AllIn       = "all in"
	DoubleCross = "double cross"
	Finger      = "finger"
	Intel       = "acquire intel"
	Guard       = "buy guard"
	Deposit     = "deposit"
	Withdraw    = "withdraw"
	ChangeJobs  = "change jobs"
	// Stick is the decision of a player that was not asked (or whose answer failed).
	Stick = "stick"
	// rabbleStick is what a rabble bettor answers when it stays in.
	rabbleStick = "!guncheck"
)

// player is a real bot or a member of the rabble; the state persists across the games of a
// tournament (spec §2.2).
type player struct {
	bot      int // index of the real bot in the tournament's list, or -1 for rabble
	credits  int64
	paycheck int64
	employed bool
	account  [banks]int64
	prob     [banks]float64
	odds     [banks]float64
	bribes   []int // one bank index per guard bought; duplicates allowed

	// per game
	bet           int64
	decision      string
	winnings      int64
	fingered      bool
	fingerSuccess bool
}

func newPlayer(bot int) *player {
	return &player{bot: bot, credits: startCredits, paycheck: startPaycheck, employed: true,
		prob: baseProb, odds: baseOdds, decision: Stick}
}

// source is the engine's generator as the rules use it; *rand.Rand implements it, and the
// rule tests script it.
type source interface {
	Float64() float64
	IntN(n int) int
	Shuffle(n int, swap func(i, j int))
}

// bankIndex is the bank for b bettors who bet t credits in total (spec §2.7).
func bankIndex(b int, t int64) int {
	idx := (int64(b) + t/bankDivisor) / bankStep // both non-negative: floor is truncation
	if idx > banks-1 {
		return banks - 1
	}
	return int(idx)
}

// game is one game after round 2: who played in which order, what they decided.
type game struct {
	rng   source
	sat   *sat
	parts []*player // game order
	bank  int
	// survive is f of spec §2.8: every bettor stayed in (and there was one).
	survive bool
	rs, dc  []*player // real stickers and double-crossers, in round-2 order
	d       bool      // the double cross succeeds

	pot, dcPot, straightPot int64
	successful              int64 // double-crossers not fingered
}

// settle computes f and D from the round-2 results (spec §2.8, end).
func (g *game) settle(bettors, stickers int) {
	g.survive = bettors > 0 && stickers == bettors
	n := len(g.dc)
	g.d = n == 1 || (n >= 1 && n <= len(g.rs)/10)
}

// resolve runs every heist, in game order, and fills the pot (spec §2.9).
func (g *game) resolve() {
	b := g.bank
	f := 0.0
	if g.survive {
		f = 1
	}
	g.pot = 0
	for _, p := range g.parts {
		base, odds := p.prob[b], p.odds[b]
		if p.decision == AllIn {
			if g.rng.Float64() < base {
				p.credits = g.sat.trunc(odds * float64(g.sat.add(p.credits, paydayLoan)))
			} else {
				p.credits = 0
			}
		} else {
			p.credits = g.sat.sub(p.credits, p.bet)
			if g.rng.Float64() < f*base {
				p.winnings = g.sat.trunc((odds + 1) * float64(p.bet))
				g.effect(p)
			}
			switch p.decision {
			case Guard:
				p.bribes = append(p.bribes, b)
				p.prob[b] += guardBonus * (1 - p.prob[b])
			case ChangeJobs:
				p.employed = false
			}
		}
		for k := range p.account {
			p.account[k] = g.sat.add(p.account[k], g.sat.trunc(interestRate*float64(p.account[k])))
		}
		switch {
		case p.decision == Finger && !p.fingerSuccess:
			g.pot = g.sat.add(g.pot, floorDiv(p.winnings, 2))
		case g.d && p.decision != AllIn && p.decision != BackOut,
			p.decision == DoubleCross && (!g.d || p.fingered):
			g.pot = g.sat.add(g.pot, p.winnings)
		}
	}
	for _, p := range g.dc {
		if !p.fingered {
			g.successful++
		}
	}
	g.dcPot = 0
	if g.d {
		g.dcPot = g.sat.mulFloorDiv(g.successful, g.pot, int64(len(g.dc)))
	}
	g.straightPot = g.sat.sub(g.pot, g.dcPot)
}

// effect applies the side effect of a successful heist's decision.
func (g *game) effect(p *player) {
	b := g.bank
	switch p.decision {
	case Intel:
		p.odds[b] += intelPerCred * float64(p.winnings)
		p.winnings = 0
	case Deposit:
		p.account[b] = g.sat.add(p.account[b], p.winnings)
		p.winnings = 0
	case Withdraw:
		p.winnings = g.sat.add(p.winnings, p.account[b])
		p.account[b] = 0
	case Finger:
		for range fingerDraws {
			if len(g.rs) == 0 {
				break // a rabble fingerer; rabble never fingers, but stay total
			}
			t := g.rs[g.rng.IntN(len(g.rs))]
			if t.decision != DoubleCross || t.fingered {
				continue
			}
			t.fingered = true
			p.fingerSuccess = true
			share := floorDiv(t.credits, fingerShare)
			t.credits = g.sat.sub(t.credits, share)
			p.credits = g.sat.add(p.credits, share)
			t.prob[b] -= fingerPenalty
		}
		if !p.fingerSuccess {
			p.odds[b] -= fingerPenalty
			p.paycheck = g.sat.sub(p.paycheck, g.sat.trunc(fingerPenalty*float64(p.paycheck)))
		}
	}
}

// pay pays every participant, in game order, and resets the per-game state (spec §2.10).
func (g *game) pay() {
	for _, p := range g.parts {
		dec := p.decision
		if dec == DoubleCross && (!g.d || p.fingered) {
			p.paycheck = floorDiv(p.paycheck, 2)
			p.employed = false
			p.winnings = 0
		}
		if !p.employed && g.rng.IntN(rehireChance)+1 == rehireChance {
			p.paycheck = g.sat.add(p.paycheck, floorDiv(p.paycheck, 20))
			p.employed = true
		}
		if p.employed && dec != BackOut && dec != AllIn {
			p.credits = g.sat.add(p.credits, p.paycheck)
		}
		switch {
		case dec == DoubleCross && g.d && !p.fingered:
			p.credits = g.sat.add(p.credits, g.sat.add(p.winnings, floorDiv(g.dcPot, g.successful)))
		case dec == Finger && !g.d && p.fingerSuccess:
			p.credits = g.sat.add(p.credits, floorDiv(p.winnings, 2))
		case !g.d:
			p.credits = g.sat.add(p.credits, p.winnings)
		}
		if dec != BackOut && dec != AllIn && dec != DoubleCross && (p.fingerSuccess || dec != Finger) && g.straightPot != 0 {
			p.credits = g.sat.add(p.credits, g.sat.mulFloorDiv(p.winnings, g.straightPot, g.pot))
		}
		g.payBribes(p)
		p.bet, p.winnings, p.fingered, p.fingerSuccess, p.decision = 0, 0, false, false, Stick
	}
}

// payBribes takes one credit per guard; a player who cannot pay loses random guards, each
// undoing its bonus on the current probability (spec §2.10 step 6).
func (g *game) payBribes(p *player) {
	p.credits = g.sat.sub(p.credits, int64(len(p.bribes)))
	if p.credits >= 0 {
		return
	}
	deficit := -p.credits
	if n := len(p.bribes); n > 0 {
		g.rng.Shuffle(n, func(i, j int) { p.bribes[i], p.bribes[j] = p.bribes[j], p.bribes[i] })
		keep := n - int(min(int64(n), deficit))
		for _, k := range p.bribes[keep:] {
			p.prob[k] = (p.prob[k] - guardBonus) / (1 - guardBonus)
		}
		p.bribes = p.bribes[:keep]
	}
	p.credits = 0
}
