package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"kothd/store"
)

func runStatus(ctx context.Context, cl *cli, args []string) error {
	fs := cl.flags()
	var c common
	c.register(fs, false)
	challenge := fs.String("challenge", "", "only this challenge")
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
		fmt.Fprintf(cl.out, "%s (question %d, engine %s)\n", ch.Name, ch.QuestionID, ch.Engine)
		fmt.Fprintf(cl.out, "  answers: %d active, %d deleted; bots accepted: %d\n", s.Answers, s.Deleted, s.Accepted)
		fmt.Fprintf(cl.out, "  last fetch: %s\n", when(s.LastFetch))
		if s.LastRun != nil {
			fmt.Fprintf(cl.out, "  last run: %d at %s, seed %d, %d games\n", s.LastRun.ID, when(s.LastRun.Started), s.LastRun.Seed, s.LastRun.GamesPlayed)
		} else {
			fmt.Fprintln(cl.out, "  last run: none")
		}
		fmt.Fprintf(cl.out, "  changes since the last run: %d\n", len(s.SinceLastRun))
		for _, e := range s.SinceLastRun {
			fmt.Fprintf(cl.out, "    %s %-8s answer %d: %s\n", when(e.At), e.Kind, e.AnswerID, e.Detail)
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
