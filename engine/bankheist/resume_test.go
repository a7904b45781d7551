package bankheist

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"

	"github.com/kothd/kothd/engine"
)

// examplesRun is a run of the author's examples (played in Go) in tournaments of about n
// games, with every decision counted under its game.
func examplesRun(games, n int, perGame map[int]int) engine.Run {
	bots := make([]engine.Entrant, len(Examples))
	for i, e := range Examples {
		bots[i] = engine.Entrant{Name: e.Name, Baseline: true, Seed: uint64(i)}
	}
	r := engine.Run{Bots: bots, Seed: 77, Games: games, Concurrency: 3, Options: &Config{GamesPerTournament: n}}
	if perGame != nil {
		var mu sync.Mutex // tournaments run concurrently, and so do their sinks
		r.Fault = func(at engine.At, _ int, _ *engine.Fault, _ any) {
			mu.Lock()
			perGame[at.Game]++
			mu.Unlock()
		}
	}
	return r
}

// A contest checkpoints at tournament boundaries only (a tournament is indivisible), at the
// games its tournaments hold; a contest killed after a checkpoint and resumed from it plays
// only the tournaments after it and ends with the table of the contest played straight.
func TestResumeAtTournaments(t *testing.T) {
	ctx := context.Background()
	want, err := Descriptor.Play(ctx, examplesRun(60, 10, nil))
	if err != nil {
		t.Fatal(err)
	}
	cfg := contest(examplesRun(60, 10, nil))
	var bounds []int // the games before each tournament
	for i, g := 0, 0; i < cfg.Tournaments; i++ {
		bounds = append(bounds, g)
		g += gamesIn(engine.GameSeed(cfg.Seed, i), 10)
	}

	var cps []engine.Checkpoint
	r := examplesRun(60, 10, nil)
	r.Batches = &engine.Batches{Every: 1, Done: func(cp engine.Checkpoint, _ func() *engine.Result) (bool, error) {
		cps = append(cps, cp)
		if len(cps) == 3 {
			return false, errKilled // the host dies here: the run ends, the checkpoint stays
		}
		return false, nil
	}}
	if _, err := Descriptor.Play(ctx, r); !errors.Is(err, errKilled) {
		t.Fatalf("the killed contest ended with %v", err)
	}
	for i, cp := range cps {
		if cp.Done != bounds[i+1] {
			t.Fatalf("checkpoint %d after %d games; tournaments start at %v", i, cp.Done, bounds)
		}
	}

	perGame := map[int]int{}
	r = examplesRun(60, 10, perGame)
	r.Batches = &engine.Batches{Resume: &cps[2], Every: 1, Done: func(engine.Checkpoint, func() *engine.Result) (bool, error) { return false, nil }}
	got, err := Descriptor.Play(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("resumed after %d games:\n%+v\nstraight:\n%+v", cps[2].Done, got.Rows, want.Rows)
	}
	for g := range perGame {
		if g < cps[2].Done {
			t.Errorf("the resumed contest played game %d, before its checkpoint at %d", g, cps[2].Done)
		}
	}
	if len(perGame) == 0 {
		t.Error("the resumed contest played nothing")
	}

	// A checkpoint inside a tournament is refused, not resumed from.
	r = examplesRun(60, 10, nil)
	r.Batches = &engine.Batches{Resume: &engine.Checkpoint{Done: bounds[1] + 1, State: cps[0].State}}
	if _, err := Descriptor.Play(ctx, r); err == nil {
		t.Error("a checkpoint inside a tournament was resumed")
	}
}

var errKilled = errors.New("killed")
