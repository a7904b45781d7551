package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/scraper"
	"github.com/kothd/kothd/store"
)

// questionEditor is what writes to the site for challenges with question_board or
// answer_comments enabled: the same API client as the fetches (one backoff and throttle
// state for both), and the access token from the environment. nil when no challenge writes,
// or the answers come from a snapshot (an offline run writes nothing; each such challenge
// says so).
func questionEditor(cfg *config.Config, src scraper.Source, log *slog.Logger) *cron.QuestionEditor {
	var names []string
	for _, ch := range cfg.Challenges {
		if ch.QuestionBoard != nil && ch.QuestionBoard.Enabled || ch.AnswerComments != nil && ch.AnswerComments.Enabled {
			names = append(names, ch.Name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	api, ok := src.(*scraper.Client)
	if !ok {
		log.Warn("question_board, answer_comments: answers come from a snapshot, so nothing is written to the site", "challenges", names)
		return nil
	}
	token := os.Getenv("SE_ACCESS_TOKEN")
	if err := api.CanWrite(token); err != nil {
		log.Error("question_board or answer_comments is enabled but "+err.Error()+": nothing is written to the site until it is in the daemon's environment (docs/deploy.md)", "challenges", names)
	}
	return &cron.QuestionEditor{API: api, Token: token}
}

// printQuestionBoard is status's line about the question's own table.
func printQuestionBoard(ctx context.Context, w io.Writer, st *store.Store, ch *config.Challenge, at func(int64) string) error {
	enabled := ch.QuestionBoard != nil && ch.QuestionBoard.Enabled
	q, err := st.QuestionBoard(ctx, ch.Name)
	if err != nil {
		return err
	}
	switch {
	case q == nil && !enabled:
		return nil
	case q == nil:
		fmt.Fprintf(w, "  question:     table enabled (top %d, at most every %s), not looked at yet\n", ch.QuestionBoard.TopRows(), ch.QuestionBoard.Interval())
		return nil
	}
	state := ""
	if !enabled {
		state = " (question_board is off now)"
	}
	last := "never edited"
	if q.EditedAt != 0 {
		last = fmt.Sprintf("last edit %s, run %d", at(q.EditedAt), q.EditedRun)
	}
	fmt.Fprintf(w, "  question:     %s%s; last look %s: %s: %s\n", last, state, at(q.CheckedAt), q.Outcome, q.Detail)
	return nil
}

// questionPublication is the question's table as a publication target for status: its
// last success is the last look that found the question showing the board (an edit, or the
// ranking unchanged within the noise), its failure a later look that failed or found the
// question needing the host (no markers, too long). Waiting for min_interval is no failure.
func questionPublication(ctx context.Context, st *store.Store, ch *config.Challenge, target string) (store.PublicationState, error) {
	p := store.PublicationState{Target: target}
	q, err := st.QuestionBoard(ctx, ch.Name)
	if err != nil || q == nil {
		return p, err
	}
	p.At, p.RunID = q.EditedAt, q.EditedRun
	switch q.Outcome {
	case cron.QuestionFailed, cron.QuestionNoMarkers, cron.QuestionTooLong:
		p.FailedAt, p.Failure = q.CheckedAt, q.Outcome+": "+q.Detail
	case cron.QuestionUnchanged:
		p.At = max(p.At, q.CheckedAt)
	}
	return p, nil
}

// commentCounts is what status says of the comments on answers not entered: nil when the
// challenge never commented and does not now.
func commentCounts(ctx context.Context, st *store.Store, ch *config.Challenge) (*store.CommentCounts, error) {
	c, err := st.CommentCounts(ctx, ch.Name)
	if err != nil {
		return nil, err
	}
	enabled := ch.AnswerComments != nil && ch.AnswerComments.Enabled
	if !enabled && c.Posted+c.Queued+c.Owed+c.Refused+c.Same == 0 {
		return nil, nil
	}
	return &c, nil
}

// printComments is status's line about the comments on answers not entered.
func printComments(w io.Writer, c *store.CommentCounts) {
	if c == nil {
		return
	}
	fmt.Fprintf(w, "  comments:     %d posted, %d refused, %d waiting (%d held by max_per_cycle), %d not repeated (same reason)", c.Posted, c.Refused, c.Queued+c.Owed, c.Queued, c.Same)
	if c.LastRefusal != "" {
		fmt.Fprintf(w, "; last refusal: %s", c.LastRefusal)
	}
	fmt.Fprintln(w)
}
