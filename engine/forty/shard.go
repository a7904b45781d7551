package forty

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/kothd/kothd/engine"
)

// sharding plays a run in shards (engine.Sharding): a shard's state is the checkpoint of
// its games alone (10,000 games: about ten seconds of play on one core, so dispatch costs
// little against it and a lost shard little play), and every field of a Tally is a sum or a maximum over games, so merged
// in any grouping, in game order, the shards give the tally of the run played straight.
var sharding = &engine.Sharding{Games: 10_000, Play: playShard, Merge: mergeShard, Table: shardTable}

func playShard(ctx context.Context, r engine.Run, first, count int, _ []byte) ([]byte, error) {
	if first < 0 || count < 1 || first+count > r.Games {
		return nil, fmt.Errorf("forty: shard of games %d..%d does not fit a run of %d", first, first+count-1, r.Games)
	}
	t, seconds, err := run(ctx, r.Calls, r.Bots, Options{Games: first + count, First: first, Seed: r.Seed, Concurrency: r.Concurrency, Progress: r.Progress})
	if err != nil {
		return nil, err
	}
	if t.Games+t.Voided != count {
		return nil, fmt.Errorf("forty: shard of %d games folded %d", count, t.Games+t.Voided)
	}
	return json.Marshal(checkpoint{t, seconds})
}

func mergeShard(acc, shard []byte) ([]byte, error) {
	var b checkpoint
	if err := json.Unmarshal(shard, &b); err != nil || b.Tally == nil {
		return nil, fmt.Errorf("forty: shard state unreadable: %v", err)
	}
	if acc == nil {
		return shard, nil
	}
	var a checkpoint
	if err := json.Unmarshal(acc, &a); err != nil || a.Tally == nil {
		return nil, fmt.Errorf("forty: merged state unreadable: %v", err)
	}
	if len(a.Tally.Bots) != len(b.Tally.Bots) {
		return nil, fmt.Errorf("forty: a shard of %d bots merged into a run of %d", len(b.Tally.Bots), len(a.Tally.Bots))
	}
	x, y := a.Tally, b.Tally
	x.Games += y.Games
	x.Voided += y.Voided
	x.PassSum += y.PassSum
	x.MaxPasses = max(x.MaxPasses, y.MaxPasses)
	x.Capped += y.Capped
	x.Tied += y.Tied
	if x.WinHist == nil {
		x.WinHist = map[int]int{}
	}
	for k, v := range y.WinHist {
		x.WinHist[k] += v
	}
	for i := range x.Bots {
		p, q := &x.Bots[i], y.Bots[i]
		p.Played += q.Played
		p.Wins += q.Wins
		p.Max = max(p.Max, q.Max)
		p.ScoreSum += q.ScoreSum
		p.WinScoreSum += q.WinScoreSum
		p.Turns += q.Turns
		p.Throws += q.Throws
		p.Successes += q.Successes
		p.Errors += q.Errors
	}
	a.Seconds += b.Seconds
	return json.Marshal(a)
}

func shardTable(r engine.Run, state []byte) (*engine.Result, error) {
	var cp checkpoint
	if err := json.Unmarshal(state, &cp); err != nil || cp.Tally == nil {
		return nil, fmt.Errorf("forty: run state unreadable: %v", err)
	}
	if len(cp.Tally.Bots) != len(r.Bots) {
		return nil, fmt.Errorf("forty: a state of %d bots for a run of %d", len(cp.Tally.Bots), len(r.Bots))
	}
	return Table(cp.Tally, r.Bots, cp.Seconds), nil
}
