package cron

import (
	"context"
	"reflect"
	"testing"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/runner/protocol"
)

// Shards are cut from game 0 whatever the start, so a resumed run plays the shards the
// uninterrupted one would have; sizes are rounded up to whole units.
func TestCutShards(t *testing.T) {
	for _, c := range []struct {
		start, games, size, unit int
		want                     []Shard
	}{
		{0, 25, 10, 1, []Shard{{0, 0, 10, nil, false}, {1, 10, 10, nil, false}, {2, 20, 5, nil, false}}},
		{10, 25, 10, 1, []Shard{{1, 10, 10, nil, false}, {2, 20, 5, nil, false}}},
		{15, 25, 10, 1, []Shard{{1, 15, 5, nil, false}, {2, 20, 5, nil, false}}},
		{0, 30, 7, 5, []Shard{{0, 0, 10, nil, false}, {1, 10, 10, nil, false}, {2, 20, 10, nil, false}}},
		{25, 25, 10, 1, nil},
	} {
		if got := CutShards(c.start, c.games, c.size, c.unit); !reflect.DeepEqual(got, c.want) {
			t.Errorf("CutShards(%d, %d, %d, %d) = %v, want %v", c.start, c.games, c.size, c.unit, got, c.want)
		}
	}
}

// Results folded in game order whatever order they come in; a duplicate (a redelivered
// shard played twice, a late worker) is ignored, so nothing is counted twice.
func TestShardFoldInOrderOnce(t *testing.T) {
	game := &engine.Game{Shards: &engine.Sharding{Merge: func(acc, s []byte) ([]byte, error) { return append(acc, s...), nil }}}
	env := &PlayEnv{Env: protocol.Env{Game: game, Bots: make([]engine.Bot, 1)}}
	f := &shardFold{env: env, shards: CutShards(0, 30, 10, 1), held: map[int]*ShardResult{}, stats: []*protocol.Stats{protocol.NewStats()}, bench: make([]*protocol.Bench, 1)}
	res := func(s string) *ShardResult {
		return &ShardResult{State: []byte(s), Stats: []protocol.StatsState{{Counts: map[engine.Outcome]int{engine.OK: 1}}}}
	}
	var done []int
	f.onFold = func(d int) { done = append(done, d) }
	ctx := context.Background()
	for _, a := range []struct {
		i int
		s string
	}{{2, "c"}, {0, "a"}, {2, "C"}, {0, "A"}, {1, "b"}, {1, "B"}, {7, "x"}} {
		if err := f.add(ctx, a.i, res(a.s)); err != nil {
			t.Fatal(err)
		}
	}
	if string(f.state) != "abc" || f.stats[0].Counts()[engine.OK] != 3 || !reflect.DeepEqual(done, []int{10, 20, 30}) {
		t.Fatalf("state %q, ok %d, folds at %v", f.state, f.stats[0].Counts()[engine.OK], done)
	}
}
