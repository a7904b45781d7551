package main

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"os"

	"kothd/cron"
)

func runDaemon(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flag.NewFlagSet("daemon", flag.ContinueOnError)
	var c common
	c.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	// The daemon reports through the log (run finished, skipped, failed), not progress lines.
	log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	cy, closeFn, err := c.cycle(ctx, log, io.Discard)
	if err != nil {
		return err
	}
	defer closeFn()
	return cron.Serve(ctx, cy)
}
