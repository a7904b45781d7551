package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"kothd/cron"
	"kothd/publisher"
)

func runDaemon(ctx context.Context, cl *cli, args []string) error {
	fs := cl.flags()
	var c common
	c.register(fs, true)
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
	// Before anything is played: a bad token or an unwritable directory shows now.
	if err := publisher.CheckWrite(ctx, cy.Sinks); err != nil {
		return fmt.Errorf("preflight: %w", err)
	}
	return cron.Serve(ctx, cy)
}
