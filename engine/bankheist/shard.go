package bankheist

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/kothd/kothd/engine"
)

// sharding plays a contest in shards of whole tournaments (engine.Sharding). A tournament
// is never split: its games share credits, jobs and guards. Its length is drawn from its
// seed (N to 1.1 N games), so shards are cut in the run's asked-for games, N a tournament:
// the shard of games [first, first+count) plays tournaments first/N up to (first+count)/N,
// the last shard every tournament left (games / N of them in all, at least one). A shard's
// state is a checkpoint's list of finished tournaments, and merging concatenates them, so
// the merged shards are the contest played straight. Bots are processes started per
// decision: nothing of a bot's lives from one tournament to the next.
var sharding = &engine.Sharding{
	// Rounded up to one tournament: the default shard is a tournament (about six minutes
	// of play for 1,000 games with the examples on this project's VM).
	Games: 1,
	Unit:  func(r engine.Run) int { return contest(r).GamesPerTournament },
	Play:  playShard,
	Merge: mergeShard,
	Table: shardTable,
}

// shardTournaments is the tournaments [lo, hi) the shard of games [first, first+count)
// plays.
func shardTournaments(cfg Config, games, first, count int) (lo, hi int) {
	n := cfg.GamesPerTournament
	lo, hi = min(first/n, cfg.Tournaments), min((first+count)/n, cfg.Tournaments)
	if first+count >= games {
		hi = cfg.Tournaments
	}
	return lo, hi
}

func playShard(ctx context.Context, r engine.Run, first, count int, _ []byte) ([]byte, error) {
	if first < 0 || count < 1 || first+count > r.Games {
		return nil, fmt.Errorf("bankheist: shard of games %d..%d does not fit a run of %d", first, first+count-1, r.Games)
	}
	cfg := contest(r)
	cfg.Workers = r.Concurrency
	cfg = cfg.norm()
	if first%cfg.GamesPerTournament != 0 {
		return nil, fmt.Errorf("bankheist: a shard starting at game %d splits a tournament of %d games", first, cfg.GamesPerTournament)
	}
	lo, hi := shardTournaments(cfg, r.Games, first, count)
	var mu sync.Mutex
	ts := make([]*tournament, hi-lo)
	done, total := 0, 0
	at := starts(cfg)
	total = at[hi] - at[lo]
	progress := func() {
		if r.Progress == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		done++
		r.Progress(done, total)
	}
	err := playRange(ctx, cfg, newDecider(r), at, lo, hi, progress, func(i int, t *tournament) {
		mu.Lock()
		defer mu.Unlock()
		ts[i-lo] = t
	})
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return nil, err
	}
	return save(ts)
}

// mergeShard appends a shard's tournaments to those merged so far.
func mergeShard(acc, shard []byte) ([]byte, error) {
	a, b := []savedTournament{}, []savedTournament{}
	if err := json.Unmarshal(shard, &b); err != nil {
		return nil, fmt.Errorf("bankheist: shard state unreadable: %w", err)
	}
	if acc != nil {
		if err := json.Unmarshal(acc, &a); err != nil {
			return nil, fmt.Errorf("bankheist: merged state unreadable: %w", err)
		}
	}
	return json.Marshal(append(a, b...))
}

// shardTable is the contest's table from all its tournaments.
func shardTable(r engine.Run, state []byte) (*engine.Result, error) {
	cfg := contest(r).norm()
	ts := make([]*tournament, cfg.Tournaments)
	if err := restore(cfg, ts, state); err != nil {
		return nil, err
	}
	return table(cfg, ts), nil
}
