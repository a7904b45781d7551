package mafia

import (
	"context"
	"reflect"
	"testing"

	"github.com/kothd/kothd/engine"
)

// A tournament played as chained shards, each on fresh bots (another machine's copies)
// handed the state the shards before it merged to, has the table of the tournament played
// straight: the bots find the files they kept. The control plays the same shards without
// handing the files on and must differ, or the test proves nothing.
func TestShardsChainToTheStraightRun(t *testing.T) {
	ctx := context.Background()
	entrants := []engine.Entrant{{Name: "Ann"}, {Name: "Bob"}, {Name: "Cid"}, {Name: "Dot"}}
	want, err := Play(ctx, newKeepers(4), entrants, 9, Options{Games: 8, Parallel: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	play := func(bots Bots, first, count int, from []byte) []byte {
		t.Helper()
		r := engine.Run{Bots: entrants, Seed: 9, Games: 8, Concurrency: 2, Files: bots}
		st, err := sharding.Play(ctx, r, first, count, from)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	var acc []byte
	for first, count := 0, 0; first < 8; first += count {
		count = min(3, 8-first) // three shards, two boundaries
		st := play(newKeepers(4), first, count, acc)
		if acc, err = sharding.Merge(acc, st); err != nil {
			t.Fatal(err)
		}
	}
	got, err := sharding.Table(engine.Run{Bots: entrants, Games: 8}, acc)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("merged shards:\n%+v\nstraight:\n%+v", got.Rows, want.Rows)
	}

	var lost []byte
	for first, count := 0, 0; first < 8; first += count {
		count = min(5, 8-first) // where TestResumeKeepsBotFiles's control differs
		st := play(&forgetful{newKeepers(4)}, first, count, lost)
		if lost, err = sharding.Merge(lost, st); err != nil {
			t.Fatal(err)
		}
	}
	if got, err = sharding.Table(engine.Run{Bots: entrants, Games: 8}, lost); err != nil || reflect.DeepEqual(got.Rows, want.Rows) {
		t.Errorf("shards whose bots lost their files played as if they had kept them (%v): the test proves nothing", err)
	}

	// A later shard with nothing to start from, or a state of other games, is refused.
	r := engine.Run{Bots: entrants, Seed: 9, Games: 8, Files: newKeepers(4)}
	if _, err := sharding.Play(ctx, r, 3, 3, nil); err == nil {
		t.Error("a shard from game 3 was played with no state to start from")
	}
	if _, err := sharding.Play(ctx, r, 2, 3, acc); err == nil {
		t.Error("a shard from game 2 was played from the state of 8 games")
	}
}
