package main

import (
	"context"
	"log/slog"
	"strconv"
)

// runReplay plays one game of a past run again and prints its trace.
func runReplay(ctx context.Context, cl *cli, args []string) error {
	fs := cl.flags()
	var c common
	c.register(fs, false)
	pos, err := cl.parse(fs, args)
	if err != nil {
		return err
	}
	run, err := strconv.ParseInt(pos[0], 10, 64)
	if err != nil || run <= 0 {
		return usageErr("RUN is a run number (the leaderboard shows it), not %q", pos[0])
	}
	game, err := strconv.Atoi(pos[1])
	if err != nil || game < 0 {
		return usageErr("GAME is a game number from 0 in play order, not %q", pos[1])
	}
	cfg, err := loadConfig(c.config)
	if err != nil {
		return err
	}
	c.noTargets = true // a replay publishes nothing
	cy, closeFn, err := c.cycle(ctx, cfg, c.logger(cl.err, slog.LevelWarn), cl.out)
	if err != nil {
		return err
	}
	defer closeFn()
	return cy.Replay(ctx, run, game, cl.out)
}
