package bankheist

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/kothd/kothd/engine"
)

// tournament is one run of G consecutive games with the same players (spec §5.1).
type tournament struct {
	index  int
	first  int // the run's number of the tournament's game 0 (Locate's numbering)
	seed   uint64
	games  int
	decide Decider
	names  []string
	log    func(tournament, game int, text string)

	bots   []*player // real bots by bot index
	order  []int     // current standings: bot indices, richest first (spec §2.3)
	rabble []*player
	sat    sat

	faults []int // per bot, faults the engine handled
	played int
	voided int
	// hostFault describes the first host fault, for the run's summary.
	hostFault string
}

// gamesIn draws a tournament's length: a uniform integer in [n, trunc(1.1 × n)] (spec §3).
func gamesIn(seed uint64, n int) int {
	r := engine.NewRand(engine.SubSeed(seed, "games"))
	hi := int(1.1 * float64(n))
	return n + r.IntN(hi-n+1)
}

func newTournament(index, first int, seed uint64, names []string, n int, d Decider) *tournament {
	t := &tournament{index: index, first: first, seed: seed, games: gamesIn(seed, n), decide: d, names: names, faults: make([]int, len(names))}
	for i := range names {
		t.bots = append(t.bots, newPlayer(i))
		t.order = append(t.order, i)
	}
	for range rabbleSize {
		t.rabble = append(t.rabble, newPlayer(-1))
	}
	return t
}

// run plays every game; it stops early only when ctx is cancelled.
func (t *tournament) run(ctx context.Context, progress func()) error {
	for g := range t.games {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("tournament %d, game %d: %w", t.index, g, err)
		}
		if t.play(ctx, g) {
			t.played++
		} else {
			t.voided++
		}
		if progress != nil {
			progress()
		}
	}
	return nil
}

// play plays game g and reports whether it counted. A host fault during the betting rounds
// voids the game: nothing has changed any lasting state yet (bets and decisions are
// per-game), so the game is simply dropped and the tournament goes on.
func (t *tournament) play(ctx context.Context, g int) bool {
	rng := engine.NewRand(engine.GameSeed(t.seed, g))
	st := computeStanding(t.bots, t.order)

	// Participants: every real bot, a random k-subset of the rabble, shuffled (spec §2.5).
	k := rng.IntN(rabbleSize + 1)
	pool := make([]int, rabbleSize)
	for i := range pool {
		pool[i] = i
	}
	parts := make([]*player, 0, len(t.bots)+k)
	for _, i := range t.order {
		parts = append(parts, t.bots[i])
	}
	for i := range k {
		j := i + rng.IntN(rabbleSize-i)
		pool[i], pool[j] = pool[j], pool[i]
		parts = append(parts, t.rabble[pool[i]])
	}
	rng.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })

	gm := &game{rng: rng, sat: &t.sat, parts: parts}
	var lg *strings.Builder
	if t.log != nil {
		lg = &strings.Builder{}
		fmt.Fprintf(lg, "#####GAME %d: %d players######\n\nRound 1:\n", g, len(parts))
	}

	// Round 1, in game order (spec §2.6).
	var bettors []*player
	var total int64
	for i, p := range parts {
		bank := bankIndex(len(bettors), total)
		var bet int64
		if p.bot >= 0 {
			ri := roundInfo{game: g, round: 1, players: len(parts), asked: i, bettors: len(bettors), total: total, bank: bank}
			ans, f := t.ask(ctx, p, g, ri, st)
			if f != nil && f.Outcome == engine.HostFault {
				t.void(parts, f)
				return false
			}
			if f == nil {
				v, ok := ParseBet(ans)
				if ok {
					bet = v
				} else {
					t.faults[p.bot]++
				}
			}
			bet = max(0, min(p.credits, bet))
			if lg != nil {
				fmt.Fprintf(lg, "%s bet %d.\n", t.name(p), bet)
			}
		} else {
			bet = rabbleRound1(p, bank, rng)
		}
		p.bet = bet
		total = t.sat.add(total, bet)
		if bet > 0 {
			bettors = append(bettors, p)
		}
	}
	gm.bank = bankIndex(len(bettors), total)

	// Round 2, bettors only, in a fresh random order (spec §2.8).
	if lg != nil {
		lg.WriteString("\nRound 2\n")
	}
	rng.Shuffle(len(bettors), func(i, j int) { bettors[i], bettors[j] = bettors[j], bettors[i] })
	stickers := 0
	for i, p := range bettors {
		var dec string
		if p.bot >= 0 {
			ri := roundInfo{game: g, round: 2, players: len(bettors), asked: i, bettors: len(bettors), total: total, stickers: stickers, bank: gm.bank}
			ans, f := t.ask(ctx, p, g, ri, st)
			switch {
			case f != nil && f.Outcome == engine.HostFault:
				t.void(parts, f)
				return false
			case f != nil:
				dec, p.bet = Stick, 0 // the original's handler: stick, stake nothing
			default:
				dec = Strip(ans)
			}
			if lg != nil {
				fmt.Fprintf(lg, "%s decided to %s.\n", t.name(p), dec)
			}
		} else {
			dec = rabbleRound2(i, stickers, rng)
		}
		p.decision = dec
		if dec == BackOut {
			p.bet = 0
			continue
		}
		stickers++
		if p.bot >= 0 {
			gm.rs = append(gm.rs, p)
			if dec == DoubleCross {
				gm.dc = append(gm.dc, p)
			}
		}
	}
	gm.settle(len(bettors), stickers)
	gm.resolve()
	gm.pay()

	sort.SliceStable(t.order, func(i, j int) bool { return t.bots[t.order[i]].credits > t.bots[t.order[j]].credits })
	if lg != nil {
		lg.WriteString("\nResults:\n")
		for i, b := range t.order {
			fmt.Fprintf(lg, "%d. %s: %d\n", i, t.name(t.bots[b]), t.bots[b].credits)
		}
		lg.WriteString("\n\n")
		t.log(t.index, g, lg.String())
	}
	return true
}

// rabbleRound1 is the rabble's bet (spec §5.2): with the probability of success at the bank
// chosen so far, a stake by strict thresholds, clamped to its credits like any bet.
func rabbleRound1(p *player, bank int, rng source) int64 {
	if rng.Float64() > p.prob[bank] {
		return 0
	}
	credits := p.credits
	var v int64
	switch {
	case credits > 80085:
		v = 80085
	case credits > 6969:
		v = 6969
	case credits > 420:
		v = 420
	default:
		v = 69
	}
	return max(0, min(credits, v))
}

// rabbleRound2 is the rabble's decision as the i-th bettor asked, after stickers of the i
// before it stayed in: back out with probability 0.55 − 0.5 × stickers / i; the first one
// asked never backs out and makes no draw.
func rabbleRound2(i, stickers int, rng source) string {
	if i > 0 && rng.Float64() < 0.55-0.5*float64(stickers)/float64(i) {
		return BackOut
	}
	return rabbleStick
}

// ask calls one real bot; every fault but a host fault is counted here.
func (t *tournament) ask(ctx context.Context, p *player, g int, ri roundInfo, st standing) (string, *engine.Fault) {
	c := Call{Bot: p.bot, Tournament: t.index, Game: g, RunGame: t.first + g, Round: ri.round, Args: argList(ri, p, st)}
	ans, f := t.decide.Decide(ctx, c)
	if f != nil && f.Outcome != engine.HostFault {
		t.faults[p.bot]++
	}
	return ans, f
}

// void forgets a game's bets and decisions after a host fault.
func (t *tournament) void(parts []*player, f *engine.Fault) {
	if t.hostFault == "" {
		t.hostFault = f.Error()
	}
	for _, p := range parts {
		p.bet, p.decision = 0, Stick
	}
}

func (t *tournament) name(p *player) string { return t.names[p.bot] }
