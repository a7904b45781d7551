package forty

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/kothd/kothd/engine"
)

// A run played as shards of uneven sizes, merged in game order, has the tally of the run
// played straight: the cluster's tables do not depend on who played which shard.
func TestShardsMergeToTheStraightRun(t *testing.T) {
	ctx := context.Background()
	bots := goField(9)
	r := engine.Run{Bots: bots, Seed: 7, Games: 250, Concurrency: 16, Calls: &goBots{}}
	want, err := Run(ctx, &goBots{}, bots, Options{Games: 250, Seed: 7, Concurrency: 16})
	if err != nil {
		t.Fatal(err)
	}
	var acc []byte
	for first, count := 0, 0; first < r.Games; first += count {
		count = min(37, r.Games-first)
		st, err := sharding.Play(ctx, r, first, count, nil)
		if err != nil {
			t.Fatal(err)
		}
		if acc, err = sharding.Merge(acc, st); err != nil {
			t.Fatal(err)
		}
	}
	var cp checkpoint
	if err := json.Unmarshal(acc, &cp); err != nil {
		t.Fatal(err)
	}
	if !sameTally(cp.Tally, want) {
		t.Fatalf("merged shards %+v\nstraight %+v", cp.Tally, want)
	}
	if _, err := sharding.Play(ctx, r, 240, 20, nil); err == nil {
		t.Fatal("a shard past the run's end was played")
	}
	res, err := sharding.Table(r, acc)
	if err != nil || len(res.Rows) != 9 || res.Games != want.Games {
		t.Fatalf("table: %v %+v", err, res)
	}
}
