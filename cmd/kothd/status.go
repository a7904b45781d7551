package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"kothd/config"
	"kothd/store"
)

func runStatus(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	cfgPath := fs.String("config", "config.yaml", "configuration file")
	challenge := fs.String("challenge", "", "only this challenge")
	if err := parse(fs, args); err != nil {
		return err
	}
	cfg, err := config.Load(*cfgPath)
	if err != nil {
		return err
	}
	st, err := store.Open(ctx, filepath.Join(cfg.DataDir, "kothd.db"))
	if err != nil {
		return err
	}
	defer st.Close()
	for _, ch := range cfg.Challenges {
		if *challenge != "" && ch.Name != *challenge {
			continue
		}
		s, err := st.Status(ctx, ch.Name)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stdout, "%s (question %d, engine %s)\n", ch.Name, ch.QuestionID, ch.Engine)
		fmt.Fprintf(os.Stdout, "  answers: %d active, %d deleted; bots accepted: %d\n", s.Answers, s.Deleted, s.Accepted)
		fmt.Fprintf(os.Stdout, "  last fetch: %s\n", when(s.LastFetch))
		if s.LastRun != nil {
			fmt.Fprintf(os.Stdout, "  last run: %d at %s, seed %d, %d games\n", s.LastRun.ID, when(s.LastRun.Started), s.LastRun.Seed, s.LastRun.GamesPlayed)
		} else {
			fmt.Fprintln(os.Stdout, "  last run: none")
		}
		fmt.Fprintf(os.Stdout, "  changes since the last run: %d\n", len(s.SinceLastRun))
		for _, e := range s.SinceLastRun {
			fmt.Fprintf(os.Stdout, "    %s %-8s answer %d: %s\n", when(e.At), e.Kind, e.AnswerID, e.Detail)
		}
	}
	return nil
}

func when(unix int64) string {
	if unix == 0 {
		return "never"
	}
	return time.Unix(unix, 0).UTC().Format("2006-01-02 15:04 UTC")
}
