package main

import (
	"context"
	"io"
	"log/slog"

	"github.com/kothd/kothd/cron"
)

func runDaemon(ctx context.Context, cl *cli, args []string) error {
	fs := cl.flags()
	var c common
	c.register(fs, true)
	allowOlder := fs.Bool("allow-older-board", false, "publish even over a published board of a later run (after losing the database)")
	if _, err := cl.parse(fs, args); err != nil {
		return err
	}
	cfg, err := loadConfig(c.config)
	if err != nil {
		return err
	}
	// The daemon reports through the log (ticks, runs, publications, progress), not
	// progress lines on stdout.
	cy, closeFn, err := c.cycle(ctx, cfg, c.logger(cl.err, slog.LevelInfo), io.Discard)
	if err != nil {
		return err
	}
	defer closeFn()
	cy.AllowOlderBoard = *allowOlder
	return cron.Serve(ctx, cy)
}
