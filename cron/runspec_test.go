package cron_test

import (
	"context"
	"sync"
	"testing"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/cron/crontest"
	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/engine/all"
)

// A run's settings are resolved once: the engine, the store's run row and the board see
// the same seed, games and concurrency, also where the challenge leaves games and
// concurrency to the game's defaults (the store used to record them as asked: 0).
func TestRunSettingsAreTheSameEverywhere(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cy, ch, played := defaultsCycle(t)
	seed := uint64(41)
	rep, err := cy.Run(ctx, ch, cron.Options{Seed: &seed})
	if err != nil {
		t.Fatal(err)
	}
	run, err := cy.Store.GetRun(ctx, rep.RunID)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := published(t, cy)
	seen := played()
	if seen.Seed != seed || seen.Games != 12 || seen.Concurrency != 3 {
		t.Errorf("the engine played seed %d, %d games, %d at a time; want %d, 12, 3", seen.Seed, seen.Games, seen.Concurrency, seed)
	}
	if run.Seed != seed || run.GamesPlanned != 12 || run.Concurrency != 3 {
		t.Errorf("the store recorded seed %d, %d games planned, concurrency %d; want %d, 12, 3", run.Seed, run.GamesPlanned, run.Concurrency, seed)
	}
	if b.Run.Seed != seed || b.Run.Games != 12 || rep.Seed != seed || rep.Games != 12 {
		t.Errorf("the board says seed %d, %d games, the report seed %d, %d games; want %d, 12", b.Run.Seed, b.Run.Games, rep.Seed, rep.Games, seed)
	}
}

// A run interrupted (kill -9) is played again with the games in flight it was started with,
// not a default that changed since (a newer kothd): the games in flight change the table of
// bots that keep state across games.
func TestResumedRunKeepsItsConcurrency(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cy, ch, played := defaultsCycle(t)
	rep, err := cy.Run(ctx, ch, cron.Options{})
	if err != nil {
		t.Fatal(err)
	}
	first, err := cy.Store.GetRun(ctx, rep.RunID)
	if err != nil {
		t.Fatal(err)
	}
	// A run of the same bots started by a kothd whose default was 5, killed mid-way.
	if _, err := cy.Store.StartRun(ctx, "forty", 77, 5, first.BotSet, 12); err != nil {
		t.Fatal(err)
	}
	if _, err := cy.Run(ctx, ch, cron.Options{}); err != nil {
		t.Fatal(err)
	}
	if seen := played(); seen.Seed != 77 || seen.Concurrency != 5 {
		t.Errorf("the interrupted run was played again with seed %d and %d games in flight; want its own 77 and 5", seen.Seed, seen.Concurrency)
	}
}

// defaultsCycle is a test cycle whose challenge "forty" plays the fake game and leaves games
// and concurrency to the game's defaults (12 and 3); played returns the run the engine was
// last given.
func defaultsCycle(t *testing.T) (*cron.Cycle, *config.Challenge, func() engine.Run) {
	t.Helper()
	cy := crontest.NewCycle(t, t.TempDir())
	var mu sync.Mutex
	var seen engine.Run
	game := *fakeGame
	game.Games, game.Concurrency = 12, 3 // the game's defaults, which the challenge does not override
	game.Play = func(ctx context.Context, r engine.Run) (*engine.Result, error) {
		mu.Lock()
		seen = r
		mu.Unlock()
		return fakePlay(ctx, r)
	}
	reg := all.Games()
	if err := reg.Register(&game); err != nil {
		t.Fatal(err)
	}
	cy.Games = reg
	ch, _ := cy.Config.Challenge("forty")
	ch.Engine, ch.Protocol, ch.Games, ch.Concurrency = "fake", "", 0, 0
	return cy, ch, func() engine.Run {
		mu.Lock()
		defer mu.Unlock()
		return seen
	}
}
