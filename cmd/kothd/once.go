package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strconv"

	"kothd/cron"
)

func runOnce(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flag.NewFlagSet("once", flag.ContinueOnError)
	var c common
	c.register(fs)
	challenge := fs.String("challenge", "", "only this challenge (default: all)")
	seed := fs.String("seed", "", "master seed (default: a fresh random one, recorded)")
	games := fs.Int("games", 0, "games to play (default: the challenge's configured number)")
	force := fs.Bool("force", false, "play even if nothing changed since the last run")
	if err := parse(fs, args); err != nil {
		return err
	}
	opts := cron.Options{Games: *games, Force: *force}
	if *seed != "" {
		v, err := strconv.ParseUint(*seed, 10, 64)
		if err != nil {
			return fmt.Errorf("--seed: %w", err)
		}
		opts.Seed = &v
	}
	cy, closeFn, err := c.cycle(ctx, log, os.Stdout)
	if err != nil {
		return err
	}
	defer closeFn()
	_, err = cy.RunAll(ctx, *challenge, opts)
	return err
}
