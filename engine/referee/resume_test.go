package referee_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/engine/referee"
)

// rpsRun is a run of the example referee with two stdio bots (Rocky and Cycler of the test
// snapshot), through the host's real parts.
func rpsRun(t *testing.T, options string) engine.Run {
	t.Helper()
	sources := map[string]string{
		"A": "import sys\nfor line in sys.stdin:\n    print('R', flush=True)\n",
		"B": "import sys\nfor line in sys.stdin:\n    print('RPS'[int(line.split()[1]) % 3], flush=True)\n",
	}
	r, _, _ := hostileRun(t, "engine/referee/examples/rps", func(string) map[string]string { return sources }, options)
	return r
}

// table is what a run's result says, without its resampler (compared apart).
func table(t *testing.T, res *engine.Result, err error) engine.Result {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	c := *res
	c.Resample = nil
	return c
}

// The same seed gives the same table whatever the games in flight, a run stopped at a
// checkpoint and resumed from it gives the table of the run played straight, and so do its
// games played in shards and merged: kothd seats every game from the seed and folds games in
// order, whatever the referee.
func TestSeedsResumesAndShards(t *testing.T) {
	ctx := context.Background()
	if _, err := os.Stat(filepath.Join("examples", "rps", "referee.py")); err != nil {
		t.Fatal(err)
	}
	r := rpsRun(t, "shape: round-robin\ngames_per_pairing: 3\nsettings: {rounds: 6}\n") // 6 games
	r.Concurrency = 1
	res, err := referee.Descriptor.Play(ctx, r)
	straight := table(t, res, err)
	if straight.Games != 6 || straight.Voided != 0 {
		t.Fatalf("straight run: %+v", straight)
	}
	r.Concurrency = 4
	res, err = referee.Descriptor.Play(ctx, r)
	if got := table(t, res, err); !reflect.DeepEqual(got, straight) {
		t.Errorf("4 games in flight gave another table:\n%+v\n%+v", got.Rows, straight.Rows)
	}

	// Stopped at its first checkpoint (after 2 games), then resumed from it.
	var saved *engine.Checkpoint
	stopped := r
	stopped.Batches = &engine.Batches{Every: 2, Done: func(cp engine.Checkpoint, _ func() *engine.Result) (bool, error) {
		saved = &cp
		return true, nil
	}}
	if _, err := referee.Descriptor.Play(ctx, stopped); err != nil {
		t.Fatal(err)
	}
	if saved == nil || saved.Done != 2 {
		t.Fatalf("checkpoint %+v", saved)
	}
	resumed := r
	resumed.Batches = &engine.Batches{Every: 2, Resume: saved, Done: func(engine.Checkpoint, func() *engine.Result) (bool, error) { return false, nil }}
	res, err = referee.Descriptor.Play(ctx, resumed)
	if got := table(t, res, err); !reflect.DeepEqual(got, straight) {
		t.Errorf("the resumed run's table differs:\n%+v\n%+v", got.Rows, straight.Rows)
	}

	// In shards of 4 and 2 games, merged in order.
	sh := referee.Descriptor.Shards
	var acc []byte
	for _, s := range [][2]int{{0, 4}, {4, 2}} {
		state, err := sh.Play(ctx, r, s[0], s[1], nil)
		if err != nil {
			t.Fatal(err)
		}
		if acc, err = sh.Merge(acc, state); err != nil {
			t.Fatal(err)
		}
	}
	res, err = sh.Table(r, acc)
	if got := table(t, res, err); !reflect.DeepEqual(got, straight) {
		t.Errorf("the merged shards' table differs:\n%+v\n%+v", got.Rows, straight.Rows)
	}
}
