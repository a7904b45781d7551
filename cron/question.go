package cron

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/publisher"
	"github.com/kothd/kothd/scraper"
	"github.com/kothd/kothd/store"
)

// The question's own table (config question_board; docs/leaderboard.md, "The question's own
// table"): after the sinks, kothd rewrites the text between the host's markers in the
// question when the ranking changed outside the noise and min_interval has passed. Nothing
// here stops play or the other publications: every outcome is a log line and a row in the
// store that `kothd status` shows, and what was not done is owed to the next cycle.

// QuestionAPI reads and edits a question (scraper.Client).
type QuestionAPI interface {
	QuestionMarkdown(ctx context.Context, id int64) (*scraper.Question, error)
	EditQuestion(ctx context.Context, id int64, e scraper.QuestionEdit, accessToken string) (*scraper.Question, error)
}

// QuestionEditor is what the cycle needs to keep questions' tables.
type QuestionEditor struct {
	API QuestionAPI
	// Token is the access token (SE_ACCESS_TOKEN) with write_access; "" makes every edit
	// fail with what to do.
	Token string
	// Now is the clock min_interval is measured by; nil: the real one.
	Now func() time.Time
}

// Outcomes of a look at the question (store.QuestionBoard.Outcome).
const (
	QuestionEdited    = "edited"     // the table was written
	QuestionUnchanged = "unchanged"  // the ranking is the question's within the noise
	QuestionWaiting   = "waiting"    // changed, but min_interval has not passed
	QuestionNoMarkers = "no-markers" // the host's markers are missing or wrong
	QuestionTooLong   = "too-long"   // the body would exceed the site's limit
	QuestionFailed    = "failed"     // the API refused or failed; see the detail
)

// questionLook is the result of one look: what happened, in words, and the run still owed.
type questionLook struct {
	outcome, detail string
	owed            int64
	err             error
}

// QuestionTarget is the publication target name of a challenge's question table, as
// reports, metrics and `kothd status` show it beside the sinks' targets.
func QuestionTarget(site string, questionID int64) string {
	return fmt.Sprintf("question:%s/%d", site, questionID)
}

// questionFailure says whether a look's outcome is the target failing: the API refused or
// failed, or the host must fix the question (markers, length). Waiting and unchanged are
// the table doing its job.
func questionFailure(outcome string) bool {
	switch outcome {
	case QuestionFailed, QuestionNoMarkers, QuestionTooLong:
		return true
	}
	return false
}

// publishQuestion keeps the question's table of b's challenge, if it has one, and returns
// its outcome as a publication target's (ok false: the challenge has no table). Like the
// sinks', a failure is reported (rep.Targets, so `once` exits 1 and the daemon's tick says
// publications failed) and never stops play or the other targets.
func (c *Cycle) publishQuestion(ctx context.Context, b *publisher.Board) (out TargetOutcome, ok bool) {
	ch, err := c.Config.Challenge(b.Challenge)
	if err != nil || ch.QuestionBoard == nil || !ch.QuestionBoard.Enabled {
		return out, false
	}
	out.Target = QuestionTarget(c.Config.Site, ch.QuestionID)
	ctx = context.WithoutCancel(ctx) // record the outcome even when the daemon is stopping
	prev, err := c.Store.QuestionBoard(ctx, ch.Name)
	if err != nil {
		c.Log.Error("question table: read its state", "challenge", ch.Name, "err", err)
		out.Err = fmt.Errorf("read the question table's state: %w", err)
		return out, true
	}
	look := c.lookAtQuestion(ctx, ch, b, prev)
	switch {
	case look.outcome == QuestionEdited:
		out.Published = true
		c.watch().Published(b.Challenge, out.Target, true)
	case look.outcome == QuestionUnchanged:
		out.Current = true // the question shows this ranking: as good as published
		c.watch().Published(b.Challenge, out.Target, true)
	case questionFailure(look.outcome):
		out.Err = fmt.Errorf("%s: %s", look.outcome, look.detail)
		c.watch().Published(b.Challenge, out.Target, false)
	}
	log := c.Log.Info
	switch look.outcome {
	case QuestionEdited:
	case QuestionUnchanged, QuestionWaiting:
	case QuestionFailed:
		log = c.Log.Error
	default:
		log = c.Log.Warn
	}
	log("question table: "+look.outcome, "challenge", ch.Name, "question", ch.QuestionID, "run", b.Run.ID, "detail", look.detail)
	c.printf("%s: question %d: %s: %s\n", ch.Name, ch.QuestionID, look.outcome, look.detail)
	if look.outcome == QuestionEdited {
		return out, true // recorded with the ranking by lookAtQuestion
	}
	if err := c.Store.RecordQuestionCheck(ctx, ch.Name, c.questionNow(), look.outcome, look.detail, look.owed); err != nil {
		c.Log.Error("question table: record the outcome", "challenge", ch.Name, "err", err)
	}
	return out, true
}

func (c *Cycle) lookAtQuestion(ctx context.Context, ch *config.Challenge, b *publisher.Board, prev *store.QuestionBoard) questionLook {
	qb := ch.QuestionBoard
	cur := publisher.RankingOf(b, qb.TopRows())
	var held *publisher.Ranking
	if prev != nil && prev.Ranking != nil {
		held = new(publisher.Ranking)
		if err := json.Unmarshal(prev.Ranking, held); err != nil {
			held = nil // unreadable: write the table again
		}
	}
	why := cur.ChangedFrom(held)
	if why == "" {
		return questionLook{outcome: QuestionUnchanged, detail: fmt.Sprintf("the ranking of run %d is the one the question shows (run %d) within the noise", b.Run.ID, held.Run)}
	}
	now := c.questionNow()
	if prev != nil && prev.EditedAt != 0 {
		next := time.Unix(prev.EditedAt, 0).Add(qb.Interval())
		if now.Before(next) {
			return questionLook{outcome: QuestionWaiting, owed: b.Run.ID,
				detail: fmt.Sprintf("%s; the next edit is allowed after %s (min_interval %s)", why, next.UTC().Format(time.RFC3339), qb.Interval())}
		}
	}
	failed := func(err error) questionLook {
		d := err.Error()
		if advice := scraper.WriteAdvice(err); advice != "" {
			d += ": " + advice
		}
		return questionLook{outcome: QuestionFailed, detail: d + "; the next cycle tries again", owed: b.Run.ID, err: err}
	}
	ed := c.Question
	if ed == nil || ed.API == nil {
		return failed(errors.New("no Stack Exchange API client for edits (a snapshot run edits no question)"))
	}
	if ed.Token == "" {
		return failed(scraper.ErrNoWriteCredentials)
	}
	q, err := ed.API.QuestionMarkdown(ctx, ch.QuestionID)
	if err != nil {
		return failed(err)
	}
	table := publisher.QuestionTable(b, qb.TopRows(), c.boardURL(b.Challenge))
	body, err := publisher.ReplaceMarked(q.BodyMarkdown, table)
	if err != nil {
		return questionLook{outcome: QuestionNoMarkers, owed: b.Run.ID,
			detail: fmt.Sprintf("%v: put %s and %s on lines of their own where the table belongs (docs/leaderboard.md); nothing was edited", err, publisher.MarkerOpen, publisher.MarkerClose)}
	}
	if n := publisher.BodyChars(body); n > scraper.MaxBodyChars {
		return questionLook{outcome: QuestionTooLong, owed: b.Run.ID,
			detail: fmt.Sprintf("with the table the question would have %d characters, more than the site's %d: lower question_board.top or shorten the question; nothing was edited", n, scraper.MaxBodyChars)}
	}
	ranking, _ := json.Marshal(cur)
	if body == q.BodyMarkdown {
		// Already there (written by hand, or by an edit whose answer was lost): no edit.
		if err := c.Store.RecordQuestionEdit(ctx, ch.Name, now, b.Run.ID, ranking, "the question already shows this table"); err != nil {
			return failed(err)
		}
		return questionLook{outcome: QuestionEdited, detail: "the question already shows the table of run " + fmt.Sprint(b.Run.ID)}
	}
	comment := fmt.Sprintf("kothd: leaderboard of run %d (seed %d, %d games): %s", b.Run.ID, b.Run.Seed, b.Run.Games, why)
	if _, err := ed.API.EditQuestion(ctx, ch.QuestionID, scraper.QuestionEdit{Body: body, Title: q.Title, Tags: q.Tags, Comment: clipChars(comment, 300)}, ed.Token); err != nil {
		return failed(err)
	}
	detail := fmt.Sprintf("wrote the table of run %d (%s)", b.Run.ID, why)
	if err := c.Store.RecordQuestionEdit(ctx, ch.Name, now, b.Run.ID, ranking, detail); err != nil {
		c.Log.Error("question table: record the edit", "challenge", ch.Name, "err", err)
	}
	return questionLook{outcome: QuestionEdited, detail: detail}
}

// questionOwed says why a cycle must run for the question's table although the question
// shows no activity: a table still owed whose min_interval has passed.
func (c *Cycle) questionOwed(ctx context.Context, ch *config.Challenge) string {
	qb := ch.QuestionBoard
	if qb == nil || !qb.Enabled {
		return ""
	}
	st, err := c.Store.QuestionBoard(ctx, ch.Name)
	if err != nil || st == nil || st.OwedRun == 0 {
		return ""
	}
	if st.EditedAt != 0 && c.questionNow().Before(time.Unix(st.EditedAt, 0).Add(qb.Interval())) {
		return ""
	}
	return fmt.Sprintf("the question's table still owes run %d (last look: %s)", st.OwedRun, st.Outcome)
}

// boardURL is where the full board can be read, for the table's link: the first sink that
// has a web page for it.
func (c *Cycle) boardURL(challenge string) string {
	for _, s := range c.Sinks {
		if p, ok := s.(interface{ PageURL(string) string }); ok {
			return p.PageURL(challenge + ".md")
		}
	}
	return ""
}

func (c *Cycle) questionNow() time.Time {
	if c.Question != nil && c.Question.Now != nil {
		return c.Question.Now()
	}
	return time.Now()
}

// clipChars keeps s within n characters (the API counts characters, not bytes).
func clipChars(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
