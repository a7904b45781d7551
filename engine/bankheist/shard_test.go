package bankheist

import (
	"context"
	"reflect"
	"testing"
)

// A contest played as shards of whole tournaments (the last shard taking what is left,
// here nothing), merged in order, has the table of the contest played straight.
func TestShardsMergeToTheStraightRun(t *testing.T) {
	ctx := context.Background()
	want, err := Descriptor.Play(ctx, examplesRun(65, 10, nil))
	if err != nil {
		t.Fatal(err)
	}
	r := examplesRun(65, 10, nil)
	if u := sharding.Unit(r); u != 10 {
		t.Fatalf("unit %d games, want a tournament of 10", u)
	}
	var acc []byte
	for first, count := 0, 0; first < r.Games; first += count {
		count = min(20, r.Games-first) // [0,20) [20,40) [40,60) [60,65): 2+2+2+0 tournaments
		st, err := sharding.Play(ctx, r, first, count, nil)
		if err != nil {
			t.Fatal(err)
		}
		if acc, err = sharding.Merge(acc, st); err != nil {
			t.Fatal(err)
		}
	}
	got, err := sharding.Table(r, acc)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("merged shards:\n%+v\nstraight:\n%+v", got.Rows, want.Rows)
	}
	if _, err := sharding.Play(ctx, r, 5, 10, nil); err == nil {
		t.Error("a shard splitting a tournament was played")
	}
	if _, err := sharding.Table(r, acc[:len(acc)/2]); err == nil {
		t.Error("a truncated state made a table")
	}
}
