package mafia

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/kothd/kothd/engine"
)

// sharding plays a tournament in shards of whole games (engine.Sharding). Bots may keep
// files in their directories from one game to the next, so the shards are Chained: each
// starts from the files the shards before it left, and they are played one after another
// (a cluster spreads the runs of several challenges, not one run's games). A shard's state
// is a checkpoint's: its games' results and each bot's kept files after its last game;
// merging appends the results and takes the later files. So the merged shards are the
// tournament played straight, with any shard size and on any machines. Bots are processes
// started per decision: nothing but their files lives from one game to the next.
var sharding = &engine.Sharding{
	// Ten games: a few minutes of play on this project's VM, and a checkpoint after each.
	Games:   10,
	Chained: true,
	Play:    playShard,
	Merge:   mergeShard,
	Table:   shardTable,
}

func playShard(ctx context.Context, r engine.Run, first, count int, from []byte) ([]byte, error) {
	if first < 0 || count < 1 || first+count > r.Games {
		return nil, fmt.Errorf("mafia: shard of games %d..%d does not fit a run of %d", first, first+count-1, r.Games)
	}
	n := len(r.Bots)
	if n == 0 {
		return save(r.Files, 0, nil)
	}
	switch {
	case first > 0 && from == nil:
		return nil, fmt.Errorf("mafia: the shard from game %d was given nothing to start from (the bots' files of the games before it)", first)
	case first > 0:
		// Checks that from holds exactly the games before this shard, and gives each bot
		// the files it kept after them.
		if _, err := restore(r.Files, n, from, first); err != nil {
			return nil, err
		}
	}
	lineup := NewLineup(names(r.Bots))
	results := make([]GameResult, 0, count)
	for i := first; i < first+count; i++ {
		res, err := lineup.Play(ctx, r.Files, engine.GameSeed(r.Seed, i), Options{Games: r.Games, Parallel: r.Concurrency, Game: i})
		if err != nil {
			return nil, fmt.Errorf("mafia game %d: %w", i, err)
		}
		results = append(results, res)
		if r.Progress != nil {
			r.Progress(len(results), count)
		}
	}
	return save(r.Files, n, results)
}

// mergeShard appends a shard's games to those merged so far; the bots' files are the
// shard's, kept after its last game.
func mergeShard(acc, shard []byte) ([]byte, error) {
	var a, b saved
	if err := json.Unmarshal(shard, &b); err != nil {
		return nil, fmt.Errorf("mafia: shard state unreadable: %w", err)
	}
	if acc != nil {
		if err := json.Unmarshal(acc, &a); err != nil {
			return nil, fmt.Errorf("mafia: merged state unreadable: %w", err)
		}
	}
	a.Games = append(a.Games, b.Games...)
	a.Kept = b.Kept
	return json.Marshal(a)
}

// shardTable is the tournament's table from all its games.
func shardTable(r engine.Run, state []byte) (*engine.Result, error) {
	var s saved
	if err := json.Unmarshal(state, &s); err != nil {
		return nil, fmt.Errorf("mafia: run state unreadable: %w", err)
	}
	if len(s.Games) != r.Games {
		return nil, fmt.Errorf("mafia: a state of %d games for a run of %d", len(s.Games), r.Games)
	}
	return Score(r.Bots, NewLineup(names(r.Bots)), s.Games), nil
}
