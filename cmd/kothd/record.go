package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/kothd/kothd/scraper"
)

func runRecord(ctx context.Context, cl *cli, args []string) error {
	fs := cl.flags()
	var c common
	c.register(fs, false)
	pos, err := cl.parse(fs, args)
	if err != nil {
		return err
	}
	cfg, err := loadConfig(c.config)
	if err != nil {
		return err
	}
	var ids []int64
	for _, ch := range cfg.Challenges {
		ids = append(ids, ch.QuestionID)
	}
	api := apiClient(cfg, c.logger(cl.err, slog.LevelWarn))
	if err := scraper.Record(ctx, api, pos[0], cfg.Site, ids); err != nil {
		return err
	}
	fmt.Fprintf(cl.out, "snapshot of %d questions written to %s (%d requests)\n", len(ids), pos[0], api.Requests())
	return nil
}
