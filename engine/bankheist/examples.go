package bankheist

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/kothd/kothd/engine"
)

// Strategy is a bot written in Go: it reads the parsed arguments and answers as a program
// would print. rnd is the bot's own generator for this one call.
type Strategy func(a Args, rnd *rand.Rand) string

// Example is one of the challenge author's example bots (spec §5.3), re-implemented in Go.
type Example struct {
	Name     string
	Strategy Strategy
}

// Examples are the author's eleven example bots, in the original roster order.
var Examples = []Example{
	{"PassivePanga", passivePanga},
	{"KaylorrCriterion", kaylorrCriterion},
	{"MonisAddiction", monisAddiction},
	{"Lurker", func(Args, *rand.Rand) string { return "0" }},
	{"HeCKuSumer", heckuSumer},
	{"gunHeCK", gunHeCK},
	{"HardHatUmar", hardHatUmar},
	{"LimeadeSneaktar", limeadeSneaktar},
	{"OC'sRandomTpyos", ocsRandomTpyos},
	{"SnitcherKing", snitcherKing},
	{"RaysFive01K", raysFive01K},
}

// ExampleStrategy returns the example bot of that name.
func ExampleStrategy(name string) (Strategy, bool) {
	for _, e := range Examples {
		if e.Name == name {
			return e.Strategy, true
		}
	}
	return nil, false
}

// Strategies is a Decider over Go strategies: bot i plays Bots[i] with its own seed
// Seeds[i] (missing seeds are 0).
type Strategies struct {
	Bots  []Strategy
	Seeds []uint64
}

func (s Strategies) Decide(_ context.Context, c Call) (string, *engine.Fault) {
	var seed uint64
	if c.Bot < len(s.Seeds) {
		seed = s.Seeds[c.Bot]
	}
	return RunStrategy(s.Bots[c.Bot], seed, c)
}

// RunStrategy answers one call with a Go strategy. Its generator is derived from the bot's
// seed and the call itself, so the answer does not depend on which tournaments happen to
// run at the same time. A panic is the bot's crash.
func RunStrategy(st Strategy, seed uint64, c Call) (ans string, f *engine.Fault) {
	a, err := ParseArgs(c.Args)
	if err != nil {
		return "", &engine.Fault{Outcome: engine.Crash, Detail: err.Error()}
	}
	defer func() {
		if r := recover(); r != nil {
			ans, f = "", &engine.Fault{Outcome: engine.Crash, Detail: fmt.Sprint(r)}
		}
	}()
	rnd := engine.NewRand(engine.SubSeed(seed, fmt.Sprintf("%d/%d/%d/%d", c.Tournament, c.Game, c.Round, a.Asked)))
	return st(a, rnd), nil
}

const stick = "!guncheck"

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

func passivePanga(a Args, _ *rand.Rand) string {
	if a.Round == 2 {
		return stick
	}
	if a.Credits > 69 {
		return "69"
	}
	return "0"
}

// kellyBet is KaylorrCriterion's round 1, with its own (buggy) bank estimate.
func kellyBet(a Args) string {
	if float64(a.Asked) < 0.37*float64(a.Players) || a.Bettors == 0 {
		return "0"
	}
	e := float64(a.Bettors) / float64(a.Asked) * float64(a.Players)
	c := e * (float64(a.Total) / float64(a.Bettors))
	idx := int(math.Min(4, math.Trunc(e+math.Floor(math.Floor(c/100000)/20))))
	p, q := a.Prob[idx], a.Odds[idx]
	k := (p*(q+1) - 1) / q
	return itoa(max(int64(k*float64(a.Credits)), 0))
}

func kaylorrCriterion(a Args, _ *rand.Rand) string {
	if a.Round == 1 {
		return kellyBet(a)
	}
	if float64(a.Asked) < 0.37*float64(a.Bettors) || a.Bettors == 0 {
		return stick
	}
	idx := int(math.Min(4, math.Trunc(float64(a.Bettors)+math.Floor(float64(a.Total/100000)/20))))
	p, q := a.Prob[idx], a.Odds[idx]
	p *= float64(a.Stickers) / float64(a.Asked)
	k := (p*(q+1) - (1 - 240/float64(a.Credits+240))) / q
	if k > 0 {
		return stick
	}
	return BackOut
}

func monisAddiction(a Args, rnd *rand.Rand) string {
	if a.Round == 1 {
		if rnd.Float64() < 0.1 {
			return "1"
		}
		return "69"
	}
	switch {
	case a.Rank > 1:
		return AllIn
	case a.Bet == 1:
		return BackOut
	}
	return stick
}

func heckuSumer(a Args, _ *rand.Rand) string {
	if a.Round == 1 {
		return itoa(int64(0.1 * float64(a.Credits)))
	}
	return stick
}

func gunHeCK(a Args, _ *rand.Rand) string {
	if a.Round == 1 {
		return kellyBet(a)
	}
	return "!gunHeCK"
}

func hardHatUmar(a Args, _ *rand.Rand) string {
	if a.Round == 2 {
		return ChangeJobs
	}
	if a.Game < 900 && a.Employed {
		return "1"
	}
	return "0"
}

func limeadeSneaktar(a Args, _ *rand.Rand) string {
	if a.Round == 1 {
		return "1"
	}
	if a.Employed && a.Game < 900 {
		return ChangeJobs
	}
	return DoubleCross
}

func ocsRandomTpyos(a Args, rnd *rand.Rand) string {
	if a.Round == 1 {
		if a.Game < 800 || a.Rank > 3 {
			return "1"
		}
		return itoa(a.Credits / 4)
	}
	switch {
	case a.Game < 800 && a.Employed:
		return ChangeJobs
	case a.Game < 800:
		return []string{Intel, Guard}[rnd.IntN(2)]
	case a.Rank > 3:
		return AllIn
	}
	return stick
}

func snitcherKing(a Args, _ *rand.Rand) string {
	if a.Round == 1 {
		return "1"
	}
	return Finger
}

func raysFive01K(a Args, rnd *rand.Rand) string {
	if a.Round == 1 {
		if a.Game < 900 {
			return itoa(a.Credits / 10)
		}
		return "1"
	}
	switch {
	case a.Game < 500 && a.Employed:
		return []string{ChangeJobs, Finger, Guard}[rnd.IntN(3)]
	case a.Game < 900:
		return Deposit
	case a.Account[a.Bank] > 0:
		return Withdraw
	case float64(a.Asked)/float64(a.Players) < 0.5:
		return Finger
	}
	return BackOut
}
