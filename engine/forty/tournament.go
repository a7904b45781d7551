package forty

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/kothd/kothd/engine"
)

// Options configure a tournament.
type Options struct {
	Games       int    // independent games (default 1,000,000 per §5.1; the config sets it)
	Seed        uint64 // master seed; game g uses engine.GameSeed(Seed, g)
	Concurrency int    // games in flight (lockstep); part of what makes a run reproducible
	Progress    engine.Progress
}

// Tally is the whole run's statistics before they are turned into a table.
type Tally struct {
	Games     int
	Voided    int
	PassSum   int
	MaxPasses int
	Capped    int
	Tied      int
	WinHist   map[int]int // winning score → games
	Bots      []BotTally
}

// BotTally is one bot's statistics over the run (§2.4).
type BotTally struct {
	Played, Wins, Max, ScoreSum, WinScoreSum int
	Turns, Throws, Successes, Errors         int
}

// GroupSize is the number of seats per game for n competitors (§5.1).
func GroupSize(n int) int {
	switch {
	case n >= 8:
		return 8
	case n >= 4:
		return 4
	default:
		return n
	}
}

// Seating draws the ordered sample of k distinct bots for one game (§3, draw 1).
func Seating(r *rand.Rand, n, k int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	for i := 0; i < k; i++ {
		j := i + r.IntN(n-i)
		idx[i], idx[j] = idx[j], idx[i]
	}
	return idx[:k]
}

// Run plays the tournament over ex and returns the raw tally.
func Run(ctx context.Context, ex engine.Exchanger, bots []engine.Entrant, opts Options) (*Tally, error) {
	n := len(bots)
	if n < 2 {
		return nil, fmt.Errorf("forty: at least 2 bots are needed, have %d", n)
	}
	k := GroupSize(n)
	results := make([]GameResult, opts.Games)
	seatings := make([][]int, opts.Games)
	ls := engine.Lockstep{Exchanger: ex, Concurrency: opts.Concurrency, Progress: opts.Progress}
	err := ls.Run(ctx, opts.Games, func(t *engine.Table) {
		results[t.Game], seatings[t.Game] = playOne(t, n, k, engine.GameSeed(opts.Seed, t.Game), nil, nil)
	})
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("forty tournament interrupted: %w", ctx.Err())
	}
	return tally(n, results, seatings), nil
}

// playOne plays one game on a lockstep table: seating and dice from the game's seed.
func playOne(t *engine.Table, n, k int, seed uint64, bots []engine.Entrant, trace func(string)) (GameResult, []int) {
	r := engine.NewRand(seed)
	order := Seating(r, n, k)
	if trace != nil {
		for i, b := range order {
			trace(fmt.Sprintf("seat %d: %s", i, bots[b].Name))
		}
	}
	seats := make([]Seat, k)
	for i, b := range order {
		seats[i] = &remoteSeat{t: t, bot: b}
	}
	res := PlayTraced(seats, func() int { return r.IntN(6) + 1 }, trace)
	ends := make([]engine.Call, k)
	for i, b := range order {
		ends[i] = engine.Call{Bot: b, Method: "end"}
	}
	t.Ask(ends...)
	return res, order
}

// Replay plays game number game of a run with master seed seed again, alone, reporting
// every turn to trace. The seating and the dice are the run's; bots that keep no state
// across games decide as they did in the run.
func Replay(ctx context.Context, ex engine.Exchanger, bots []engine.Entrant, seed uint64, game int, trace func(string)) (GameResult, error) {
	n := len(bots)
	if n < 2 {
		return GameResult{}, fmt.Errorf("forty: at least 2 bots are needed, have %d", n)
	}
	k := GroupSize(n)
	var res GameResult
	err := engine.Lockstep{Exchanger: ex, Concurrency: 1}.Run(ctx, 1, func(t *engine.Table) {
		res, _ = playOne(t, n, k, engine.GameSeed(seed, game), bots, trace)
	})
	return res, err
}

// tally folds the games, in game order, into the run's statistics.
func tally(n int, results []GameResult, seatings [][]int) *Tally {
	t := &Tally{WinHist: map[int]int{}, Bots: make([]BotTally, n)}
	for g, res := range results {
		if res.Void {
			t.Voided++
			continue
		}
		t.Games++
		t.PassSum += res.Passes
		t.MaxPasses = max(t.MaxPasses, res.Passes)
		if res.Capped {
			t.Capped++
		}
		t.WinHist[res.Max]++
		winners := 0
		for i, s := range res.Seats {
			b := &t.Bots[seatings[g][i]]
			b.Played++
			b.Max = max(b.Max, s.Score)
			b.ScoreSum += s.Score
			b.Turns += s.Turns
			b.Throws += s.Throws
			b.Successes += s.Successes
			b.Errors += s.Errors
			if s.Won {
				winners++
				b.Wins++
				b.WinScoreSum += s.Score
			}
		}
		if winners > 1 {
			t.Tied++
		}
	}
	return t
}
