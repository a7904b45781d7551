package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"kothd/cron"
	"kothd/publisher"
	"kothd/store"
)

// runBench plays a challenge's tournament on a snapshot in a scratch data directory (the
// host's store and leaderboards are untouched) and reports the throughput: the numbers a
// host needs to size games per run.
func runBench(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	var c common
	c.register(fs)
	challenge := fs.String("challenge", "forty", "challenge to play")
	games := fs.Int("games", 10000, "games to play")
	seed := fs.Uint64("seed", 1, "master seed")
	verbose := fs.Bool("v", false, "print the cycle's progress")
	if err := parse(fs, args); err != nil {
		return err
	}
	scratch, err := os.MkdirTemp("", "kothd-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	var out io.Writer = io.Discard
	if *verbose {
		out = os.Stdout
	}
	cy, closeFn, err := c.cycle(ctx, log, out)
	if err != nil {
		return err
	}
	closeFn() // the bench uses its own store, not the host's
	cy.Config.DataDir = filepath.Join(scratch, "data")
	if cy.Store, err = store.Open(ctx, filepath.Join(cy.Config.DataDir, "kothd.db")); err != nil {
		return err
	}
	defer cy.Store.Close()
	cy.Sinks = []publisher.Sink{publisher.Dir{Path: filepath.Join(scratch, "out")}}
	reps, err := cy.RunAll(ctx, *challenge, cron.Options{Seed: seed, Games: *games, Force: true})
	if err != nil {
		return err
	}
	for _, r := range reps {
		if r.RunID == 0 {
			return fmt.Errorf("%s: nothing played: %s", r.Challenge, r.Skipped)
		}
		fmt.Printf("%s: %d games with %d bots in %.2fs: %.1f games/s (sandbox %s, seed %d)\n",
			r.Challenge, r.Games, r.Entered, r.Elapsed.Seconds(), float64(r.Games)/r.Elapsed.Seconds(), cy.Sandbox.Name(), r.Seed)
	}
	return nil
}
