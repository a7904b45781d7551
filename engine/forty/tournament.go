package forty

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/kothd/kothd/engine"
)

// Options configure a tournament.
type Options struct {
	Games       int    // independent games (default 1,000,000 per §5.1; the config sets it)
	Seed        uint64 // master seed; game g uses engine.GameSeed(Seed, g)
	Concurrency int    // games in flight (lockstep); part of what makes a run reproducible
	Progress    engine.Progress
	// Batches, when set, checkpoints the run, resumes it and may end it early (see
	// engine.Batches); Sofar turns the tally so far, and the seconds spent playing it, into
	// the table Batches.Done may ask for.
	Batches *engine.Batches
	Sofar   func(t *Tally, seconds float64) *engine.Result
	// First, without Batches, plays games First..Games-1 from an empty tally: a shard
	// (shard.go), whose tally holds only its own games.
	First int
}

// Tally is the whole run's statistics before they are turned into a table. It is folded
// game by game, in game order, and is all a checkpoint holds.
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

// checkpoint is a run's state at a batch boundary: its tally, and the time spent playing
// so far (the table's summary counts every part of a resumed run).
type checkpoint struct {
	Tally   *Tally
	Seconds float64
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

// Run plays the tournament over ex and returns the raw tally: of every game, or of the
// games up to where opts.Batches ended the run early.
func Run(ctx context.Context, ex engine.Exchanger, bots []engine.Entrant, opts Options) (*Tally, error) {
	t, _, err := run(ctx, ex, bots, opts)
	return t, err
}

// run is Run, also returning the seconds spent playing (over every part of a resumed run).
func run(ctx context.Context, ex engine.Exchanger, bots []engine.Entrant, opts Options) (*Tally, float64, error) {
	n := len(bots)
	if n < 2 {
		return nil, 0, fmt.Errorf("forty: at least 2 bots are needed, have %d", n)
	}
	k := GroupSize(n)
	started := time.Now()
	t, before, first, err := resume(opts.Batches, n, opts.Games)
	if err != nil {
		return nil, 0, err
	}
	if opts.Batches == nil && opts.First > 0 {
		if opts.First > opts.Games {
			return nil, 0, fmt.Errorf("forty: a shard from game %d of a run of %d", opts.First, opts.Games)
		}
		first = opts.First
	}
	clock := func() float64 { return before + time.Since(started).Seconds() }
	state := func() ([]byte, error) { return json.Marshal(checkpoint{t, clock()}) }
	sofar := func() *engine.Result {
		if opts.Sofar == nil {
			return nil
		}
		return opts.Sofar(t, clock())
	}
	fold, playCtx := engine.NewFold(ctx, opts.Batches, first, opts.Games, func(_ int, p played) { t.fold(p.res, p.seats) }, state, sofar)
	// The groups' games are stepped side by side (ParallelSteps): a step touches only its
	// slot, and a game's end (over, through remoteGame.End) comes on RunSteps' goroutine.
	ls := engine.Lockstep{Exchanger: ex, Concurrency: opts.Concurrency, Groups: engine.TickGroups, Progress: opts.Progress, First: first, ParallelSteps: true}
	var free []*remoteGame // the slots of games that ended, to start the next games in
	over := func(s *remoteGame) {
		fold.Add(s.game, played{s.result(), s.seating})
		free = append(free, s)
	}
	err = ls.RunSteps(playCtx, opts.Games, func(game int) engine.Stepper {
		var s *remoteGame
		if n := len(free); n > 0 {
			s, free = free[n-1], free[:n-1]
		} else {
			s = &remoteGame{}
		}
		s.deal(n, k, game, engine.GameSeed(opts.Seed, game), nil, nil, over)
		return s
	})
	stopped, err := fold.End(err)
	if err != nil {
		return nil, 0, fmt.Errorf("forty tournament: %w", err)
	}
	if !stopped && ctx.Err() != nil {
		// Cancelled after the last game started: those in flight were cut short.
		return nil, 0, fmt.Errorf("forty tournament interrupted: %w", ctx.Err())
	}
	return t, clock(), nil
}

// played is one finished game waiting to be folded.
type played struct {
	res   GameResult
	seats []int // bot of each seat
}

// resume returns the tally a run starts from, the seconds already spent and its first
// game: a checkpoint's, or nothing yet.
func resume(b *engine.Batches, n, games int) (*Tally, float64, int, error) {
	first, err := b.Start(games)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("forty: %w", err)
	}
	if first == 0 {
		return &Tally{WinHist: map[int]int{}, Bots: make([]BotTally, n)}, 0, 0, nil
	}
	var cp checkpoint
	if err := json.Unmarshal(b.Resume.State, &cp); err != nil {
		return nil, 0, 0, fmt.Errorf("forty: checkpoint unreadable: %w", err)
	}
	if t := cp.Tally; t == nil || len(t.Bots) != n || t.WinHist == nil {
		return nil, 0, 0, fmt.Errorf("forty: the checkpoint is not of this run's %d bots", n)
	}
	if t := cp.Tally; t.Games+t.Voided != first { // every folded game is one or the other: catches {} and a mislabelled state
		return nil, 0, 0, fmt.Errorf("forty: checkpoint after %d games holds %d", first, t.Games+t.Voided)
	}
	return cp.Tally, cp.Seconds, first, nil
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
	s := &remoteGame{}
	// The game keeps its number (First): the harness keys each game's stream of the bots'
	// random module by the number its calls carry, so a replay sent as game 0 would draw
	// from another stream than the run's game did.
	err := engine.Lockstep{Exchanger: ex, Concurrency: 1, First: game}.RunSteps(ctx, game+1, func(int) engine.Stepper {
		s.deal(n, k, game, engine.GameSeed(seed, game), bots, trace, func(s *remoteGame) { res = s.result() })
		return s
	})
	return res, err
}

// fold adds one game, the next in game order, to the tally.
func (t *Tally) fold(res GameResult, seating []int) {
	if res.Void {
		t.Voided++
		return
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
		b := &t.Bots[seating[i]]
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
