package cron

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/internal/stats"
	"github.com/kothd/kothd/publisher"
)

// adaptive is a run's adaptive length (the challenge's `adaptive:` block): at each batch
// boundary it asks the board's own statistics whether every pair of adjacent ranks is
// separated, and ends the run once they are (not before minGames); otherwise the run plays
// its whole budget. Its decisions depend only on the games so far and the run's seed, and
// are made in game order, so the same seed and bots stop after the same number of games.
// Its settings, defaults applied, are part of the run's description (PlayEnv.resolve);
// each run starts a copy of them (RunSpec.startAdaptive).
type adaptive struct {
	confidence float64
	batch      int
	minGames   int
	budget     int
	seed       uint64 // the run's: the bootstrap's stream, as on the board
	stoppedAt  int    // games played when it ended the run; 0 while it plays on
}

// stop decides at a boundary of a run that reports every `every` games (the adaptive batch
// itself, or the checkpoints' batch when they are saved more often): the run ends there
// when the order is due for a look and its table so far leaves no adjacent ranks
// unseparated.
func (a *adaptive) stop(done, every int, sofar func() *engine.Result) bool {
	if !a.due(done, every) || len(stats.Unsettled(sofar().StatsTable(), a.seed, a.perLook())) > 0 {
		return false
	}
	a.stoppedAt = done
	return true
}

// perLook is the confidence each look at the order is tested at. The order is looked at
// again and again, and a run that stops at the first look that happens to separate
// everything would claim more than it has (two equal bots "settled at 95 %" in some 60 %
// of runs of ten looks): the error allowed, 1 − confidence, is spent evenly over the looks
// the run can make (Bonferroni), so the run's "settled at 95 %" holds over all its looks.
func (a *adaptive) perLook() float64 {
	return 1 - (1-a.confidence)/float64(a.looks())
}

// looks is how many times a run of the whole budget looks at the order: once per multiple
// of the batch from min_games to the budget (at least once).
func (a *adaptive) looks() int {
	return max(1, a.budget/a.batch-(a.minGames-1)/a.batch)
}

// due says whether the boundary after done games is one where the order is looked at:
// from min_games on, the first boundary at or after each multiple of the batch. It
// depends on nothing but its arguments, so a run resumed from a checkpoint looks where
// the uninterrupted run would have.
func (a *adaptive) due(done, every int) bool {
	return done >= a.minGames && done/a.batch > (done-max(every, 1))/a.batch
}

// ending says, for the board, why the run ended and after how many games, given its final
// table. A run that played its whole budget and ended settled anyway (its last batch
// settled it; the end of a run is no batch boundary) says settled too.
func (a *adaptive) ending(res *engine.Result) *publisher.Ending {
	e := &publisher.Ending{Reason: publisher.EndSettled, Confidence: a.confidence, Games: res.Games + res.Voided,
		Budget: a.budget, MinGames: a.minGames, Batch: a.batch, Overlaps: [][2]int{}}
	if a.stoppedAt == 0 {
		if u := stats.Unsettled(res.StatsTable(), a.seed, a.confidence); len(u) > 0 {
			e.Reason, e.Overlaps = publisher.EndBudget, u
		}
	}
	return e
}

// adaptiveKey is what of the challenge's adaptive block changes its runs' results, for
// the bot set's hash ("" without one, which leaves the hash of other challenges as it was).
func adaptiveKey(env *PlayEnv) string {
	c := env.Challenge.Adaptive
	if c == nil {
		return ""
	}
	return fmt.Sprintf("adaptive %g %d %d", c.Confidence, c.Batch, c.MinGames)
}

// endedAfter is how many games a run of adaptive length played, from its stored board
// (which keeps why the run ended); false for a run of fixed length or without a board.
func (c *Cycle) endedAfter(ctx context.Context, runID int64) (int, bool) {
	raw, err := c.Store.RunBoard(ctx, runID)
	if err != nil || raw == nil {
		return 0, false
	}
	var b struct {
		Run struct {
			Ending *publisher.Ending `json:"ending"`
		} `json:"run"`
	}
	if json.Unmarshal(raw, &b) != nil || b.Run.Ending == nil {
		return 0, false
	}
	return b.Run.Ending.Games, true
}
