package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/publisher"
)

// runBench plays a challenge's tournament in a scratch data directory (the host's store
// and leaderboards are untouched) and reports the throughput: the numbers a host needs to
// size games per run. It reads a snapshot, or the live API only when told so.
func runBench(ctx context.Context, cl *cli, args []string) error {
	fs := cl.flags()
	var c common
	c.register(fs, true)
	live := fs.Bool("live", false, "fetch the answers from the live API (costs API quota) instead of --snapshot")
	challenge := fs.String("challenge", "forty", "challenge to play")
	games := positive(10000)
	fs.Var(&games, "games", "`number` of games to play (default 10000)")
	var seed optSeed
	fs.Var(&seed, "seed", "master `seed` (default 1)")
	verbose := fs.Bool("v", false, "print the cycle's progress")
	if _, err := cl.parse(fs, args); err != nil {
		return err
	}
	switch {
	case c.snapshot == "" && !*live:
		return usageErr("bench needs --snapshot DIR, or --live to fetch the answers from the live API")
	case c.snapshot != "" && *live:
		return usageErr("--snapshot and --live exclude each other")
	}
	if !seed.set {
		seed = optSeed{set: true, v: 1}
	}
	cfg, err := loadConfig(c.config)
	if err != nil {
		return err
	}
	if err := checkChallenge(cfg, *challenge); err != nil {
		return err
	}
	scratch, err := os.MkdirTemp("", "kothd-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	var out io.Writer = io.Discard
	if *verbose {
		out = cl.out
	}
	cfg.DataDir = filepath.Join(scratch, "data") // the bench uses its own store, not the host's
	cy, closeFn, err := c.cycle(ctx, cfg, c.logger(cl.err, slog.LevelWarn), out)
	if err != nil {
		return err
	}
	defer closeFn()
	cy.Sinks = []publisher.Sink{publisher.Dir{Path: filepath.Join(scratch, "out")}}
	reps, err := cy.RunAll(ctx, *challenge, cron.Options{Seed: seed.ptr(), Games: int(games), Force: true})
	if err != nil {
		return err
	}
	for _, r := range reps {
		if r.RunID == 0 {
			return fmt.Errorf("%s: nothing played: %s", r.Challenge, r.Skipped)
		}
		fmt.Fprintf(cl.out, "%s: %d games with %d bots in %.2fs: %.1f games/s (sandbox %s, seed %d)\n",
			r.Challenge, r.Games, r.Entered, r.Elapsed.Seconds(), float64(r.Games)/r.Elapsed.Seconds(), cy.Sandbox.Name(), r.Seed)
	}
	return nil
}
