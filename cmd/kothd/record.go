package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"

	"kothd/config"
	"kothd/scraper"
)

func runRecord(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flag.NewFlagSet("record", flag.ContinueOnError)
	cfgPath := fs.String("config", "config.yaml", "configuration file")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fmt.Println("usage: kothd record [--config F] DIR")
		return errUsage
	}
	cfg, err := config.Load(*cfgPath)
	if err != nil {
		return err
	}
	var ids []int64
	for _, ch := range cfg.Challenges {
		ids = append(ids, ch.QuestionID)
	}
	c := apiClient(cfg, log)
	if err := scraper.Record(ctx, c, fs.Arg(0), cfg.Site, ids); err != nil {
		return err
	}
	fmt.Printf("snapshot of %d questions written to %s (%d requests)\n", len(ids), fs.Arg(0), c.Requests())
	return nil
}
