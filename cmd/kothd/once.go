package main

import (
	"context"
	"log/slog"

	"github.com/kothd/kothd/cron"
)

func runOnce(ctx context.Context, cl *cli, args []string) error {
	fs := cl.flags()
	var c common
	c.register(fs, true)
	challenge := fs.String("challenge", "", "only this `challenge` (default: all)")
	var seed optSeed
	fs.Var(&seed, "seed", "master `seed` (default: a fresh random one, recorded)")
	var games positive
	fs.Var(&games, "games", "`number` of games to play (default: the challenge's configured number)")
	force := fs.Bool("force", false, "play even if nothing changed since the last run")
	allowOlder := fs.Bool("allow-older-board", false, "publish even over a published board of a later run (after losing the database)")
	if _, err := cl.parse(fs, args); err != nil {
		return err
	}
	cfg, err := loadConfig(c.config)
	if err != nil {
		return err
	}
	if err := checkChallenge(cfg, *challenge); err != nil {
		return err
	}
	cy, closeFn, err := c.cycle(ctx, cfg, c.logger(cl.err, slog.LevelWarn), cl.out)
	if err != nil {
		return err
	}
	defer closeFn()
	cy.AllowOlderBoard = *allowOlder
	_, err = cy.RunAll(ctx, *challenge, cron.Options{Seed: seed.ptr(), Games: int(games), Force: *force})
	return err
}
