package main

import (
	"context"
	"flag"
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
	cy, closeFn, err := c.cycle(ctx, log, os.Stdout)
	if err != nil {
		return err
	}
	defer closeFn()
	return cron.Serve(ctx, cy)
}
