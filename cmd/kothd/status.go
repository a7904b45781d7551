package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/store"
)

// runStatus answers, per challenge and from the store alone: what happened last, what
// happens next, whether the board is out, and why each answer is or is not in.
func runStatus(ctx context.Context, cl *cli, args []string) error {
	fs := cl.flags()
	var c common
	c.register(fs, false)
	challenge := fs.String("challenge", "", "only this `challenge`")
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
	loc, err := cfg.Location()
	if err != nil {
		return err
	}
	// Read only: status creates and migrates nothing (it may run as another user than the
	// daemon, or be a newer binary).
	st, err := store.OpenReadOnly(ctx, filepath.Join(cfg.DataDir, "kothd.db"))
	if errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(cl.out, "no database in %s yet: kothd has not run with this data_dir\n", cfg.DataDir)
		return nil
	}
	if err != nil {
		return err
	}
	defer st.Close()
	for i := range cfg.Challenges {
		ch := &cfg.Challenges[i]
		if *challenge != "" && ch.Name != *challenge {
			continue
		}
		if err := printStatus(ctx, cl.out, st, cfg, ch, loc, time.Now()); err != nil {
			return fmt.Errorf("status of %s: %w", ch.Name, err)
		}
	}
	return nil
}

func printStatus(ctx context.Context, w io.Writer, st *store.Store, cfg *config.Config, ch *config.Challenge, loc *time.Location, now time.Time) error {
	s, err := st.Status(ctx, ch.Name)
	if err != nil {
		return err
	}
	at := func(unix int64) string {
		if unix == 0 {
			return "never"
		}
		return time.Unix(unix, 0).In(loc).Format("2006-01-02 15:04 MST")
	}
	fmt.Fprintf(w, "%s: %s (question %d, engine %s)\n", ch.Name, ch.Title, ch.QuestionID, ch.Engine)
	// Last run: the newest attempt, and the board's run when that attempt did not finish.
	switch a := s.LastAttempt; {
	case a == nil:
		fmt.Fprintln(w, "  last run:     none yet")
	default:
		fmt.Fprintf(w, "  last run:     %s\n", runLine(a, at))
		if a.State != "done" && s.LastRun != nil {
			fmt.Fprintf(w, "  board from:   %s\n", runLine(s.LastRun, at))
		}
	}
	spec := cfg.ScheduleOf(ch)
	if sched, err := config.ParseSchedule(spec, loc); err == nil {
		fmt.Fprintf(w, "  next run:     %s (schedule %q; when the daemon runs)\n", sched.Next(now).In(loc).Format("2006-01-02 15:04 MST"), spec)
	}
	fmt.Fprintf(w, "  last fetch:   %s\n", at(s.LastFetch))
	pubs, err := st.Publications(ctx, ch.Name)
	if err != nil {
		return err
	}
	if len(pubs) == 0 {
		fmt.Fprintln(w, "  published:    never")
	}
	for _, p := range pubs {
		switch {
		case p.FailedAt != 0:
			fmt.Fprintf(w, "  published:    %s: FAILED at %s: %s (last success: %s)\n", p.Target, at(p.FailedAt), p.Failure, at(p.At))
		default:
			fmt.Fprintf(w, "  published:    %s: ok at %s, run %d%s\n", p.Target, at(p.At), p.RunID, prefixed(", commit ", p.Commit))
		}
	}
	if err := printQuestionBoard(ctx, w, st, ch, at); err != nil {
		return err
	}
	bots, err := st.AnswerBots(ctx, ch.Name)
	if err != nil {
		return err
	}
	var in, out, pending []store.AnswerBot
	for _, b := range bots {
		switch b.Status {
		case "ok":
			in = append(in, b)
		case "":
			pending = append(pending, b)
		default:
			out = append(out, b)
		}
	}
	fmt.Fprintf(w, "  answers:      %d active, %d deleted; %d bots entered, %d not entered", s.Answers, s.Deleted, len(in), len(out))
	if len(pending) > 0 {
		fmt.Fprintf(w, ", %d answers not prepared yet", len(pending))
	}
	fmt.Fprintln(w)
	for _, b := range in {
		fmt.Fprintf(w, "    entered      %-24s answer %d by %s%s\n", b.Bot, b.AnswerID, b.Author, prefixed(", ", b.Language))
	}
	for _, b := range out {
		fmt.Fprintf(w, "    NOT entered  %-24s answer %d by %s: %s: %s\n", orTitle(b), b.AnswerID, b.Author, b.Status, oneLine(b.Reason))
	}
	for _, b := range pending {
		fmt.Fprintf(w, "    pending      %-24s answer %d by %s: fetched, not built yet (the next cycle will)\n", orTitle(b), b.AnswerID, b.Author)
	}
	fmt.Fprintf(w, "  changes since the last run: %d\n", len(s.SinceLastRun))
	for _, e := range s.SinceLastRun {
		about := ""
		if e.AnswerID != 0 {
			about = fmt.Sprintf("answer %d: ", e.AnswerID)
		}
		fmt.Fprintf(w, "    %s %-8s %s%s\n", at(e.At), e.Kind, about, oneLine(e.Detail))
	}
	return nil
}

// runLine describes a run: its number, state (and why it did not finish), seed and games.
func runLine(r *store.Run, at func(int64) string) string {
	state := r.State
	switch {
	case r.Interrupted():
		state = "interrupted (the next cycle plays it again with its seed)"
	case r.State == "failed":
		state = "failed: " + oneLine(r.Error)
	}
	return fmt.Sprintf("run %d started %s, %s; seed %d, %d of %d games", r.ID, at(r.Started), state, r.Seed, r.GamesPlayed, r.GamesPlanned)
}

func orTitle(b store.AnswerBot) string {
	if b.Bot != "" {
		return b.Bot
	}
	if b.Title != "" {
		return b.Title
	}
	return "(untitled)"
}

// oneLine keeps a multi-line reason (a build log) to its first line and a sane length;
// the board has the rest.
func oneLine(s string) string {
	s, _, cut := strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > 160 {
		s, cut = string(r[:160]), true
	}
	if cut {
		s += " …"
	}
	return s
}
