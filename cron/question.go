package cron

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
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

// QuestionAPI reads and edits a question, and comments on answers (scraper.Client).
type QuestionAPI interface {
	// CanWrite says, without a request, whether a write with the token has its credentials.
	CanWrite(accessToken string) error
	QuestionMarkdown(ctx context.Context, id int64) (*scraper.Question, error)
	EditQuestion(ctx context.Context, id int64, e scraper.QuestionEdit, accessToken string) (*scraper.Question, error)
	AddComment(ctx context.Context, postID int64, body, accessToken string) (*scraper.Comment, error)
}

// QuestionEditor is what the cycle needs to keep questions' tables and to comment on
// answers (comments.go).
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
	// Someone else edited the question since kothd's table went in (a rollback to an old
	// table, a rewrite): the ranking kothd holds says nothing of what the question shows,
	// so the body is read again and the table restored if it is gone.
	foreign := prev != nil && prev.EditedAt != 0 && prev.SiteEditDate > prev.OwnEditDate
	if foreign {
		why = fmt.Sprintf("someone else edited the question at %s, after kothd's table went in", time.Unix(prev.SiteEditDate, 0).UTC().Format(time.RFC3339))
	}
	if why == "" {
		return questionLook{outcome: QuestionUnchanged, detail: fmt.Sprintf("the ranking of run %d is the one the question shows (run %d) within the noise", b.Run.ID, held.Run)}
	}
	now := c.questionNow()
	// wait is the look while min_interval has not passed since kothd's last edit: it holds
	// repairs too (every edit bumps the question, whatever its reason, and a person who
	// removes the table again and again must not start an edit war with a daemon).
	wait := func() (questionLook, bool) {
		if prev == nil || prev.EditedAt == 0 {
			return questionLook{}, false
		}
		next := time.Unix(prev.EditedAt, 0).Add(qb.Interval())
		if !now.Before(next) {
			return questionLook{}, false
		}
		return questionLook{outcome: QuestionWaiting, owed: b.Run.ID,
			detail: fmt.Sprintf("%s; the next edit is allowed after %s (min_interval %s)", why, next.UTC().Format(time.RFC3339), qb.Interval())}, true
	}
	if !foreign {
		// Reading the question is for an edit that may be made now. After someone else's
		// edit it is read at once: it may still show the table, and then nothing waits.
		if l, ok := wait(); ok {
			return l
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
	if err := ed.API.CanWrite(ed.Token); err != nil {
		return failed(err) // before any request: nothing is spent on a write that cannot be made
	}
	q, err := ed.API.QuestionMarkdown(ctx, ch.QuestionID)
	if err != nil {
		return failed(err)
	}
	if foreign && q.LastEditDate <= prev.OwnEditDate && q.LastEditDate != 0 {
		foreign = false // the probe's date was stale: nothing new
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
	if body != q.BodyMarkdown && foreign {
		if l, ok := wait(); ok {
			return l
		}
	}
	if body == q.BodyMarkdown {
		// Already there (written by hand, or by an edit whose answer was lost): no edit.
		detail := "the question already shows the table of run " + fmt.Sprint(b.Run.ID)
		if foreign {
			detail = "someone else edited the question, and it still shows the table of run " + fmt.Sprint(b.Run.ID)
		}
		if err := c.Store.RecordQuestionEdit(ctx, ch.Name, now, b.Run.ID, ranking, detail, q.LastEditDate); err != nil {
			return failed(err)
		}
		return questionLook{outcome: QuestionEdited, detail: detail}
	}
	comment := fmt.Sprintf("kothd: leaderboard of run %d (seed %d, %d games): %s", b.Run.ID, b.Run.Seed, b.Run.Games, why)
	if foreign {
		comment = fmt.Sprintf("kothd: restored the leaderboard of run %d (seed %d, %d games) that an edit removed or changed", b.Run.ID, b.Run.Seed, b.Run.Games)
	}
	edited, err := ed.API.EditQuestion(ctx, ch.QuestionID, scraper.QuestionEdit{Body: body, Title: q.Title, Tags: q.Tags, Comment: clipChars(comment, 300)}, ed.Token)
	if err != nil {
		return failed(err)
	}
	siteEdit := int64(0) // not known: the next probe's date looks foreign once, and the body read then settles it
	if edited != nil {
		siteEdit = edited.LastEditDate
	}
	detail := fmt.Sprintf("wrote the table of run %d (%s)", b.Run.ID, why)
	if err := c.Store.RecordQuestionEdit(ctx, ch.Name, now, b.Run.ID, ranking, detail, siteEdit); err != nil {
		c.Log.Error("question table: record the edit", "challenge", ch.Name, "err", err)
	}
	return questionLook{outcome: QuestionEdited, detail: detail}
}

// questionOwed says why a cycle must run for the question's table although the question
// shows no activity: a table still owed, or an edit by someone else to look at, once
// min_interval has passed; or a table enabled and never looked at (enabling it on a quiet
// question must not wait for someone to post).
func (c *Cycle) questionOwed(ctx context.Context, ch *config.Challenge) string {
	qb := ch.QuestionBoard
	if qb == nil || !qb.Enabled {
		return ""
	}
	st, err := c.Store.QuestionBoard(ctx, ch.Name)
	if err != nil {
		return ""
	}
	if st == nil || st.CheckedAt == 0 {
		// Only with a board to show: a challenge that never played has nothing to write,
		// and must not be fetched every tick for it.
		if run, err := c.Store.LastRun(ctx, ch.Name); err != nil || run == nil {
			return ""
		}
		return "the question's table is enabled and was never looked at"
	}
	foreign := st.EditedAt != 0 && st.SiteEditDate > st.OwnEditDate
	if st.OwedRun == 0 && !foreign {
		return ""
	}
	if st.EditedAt != 0 && c.questionNow().Before(time.Unix(st.EditedAt, 0).Add(qb.Interval())) {
		return ""
	}
	if st.OwedRun == 0 {
		return fmt.Sprintf("someone else edited the question at %s: its table is checked", time.Unix(st.SiteEditDate, 0).UTC().Format(time.RFC3339))
	}
	return fmt.Sprintf("the question's table still owes run %d (last look: %s)", st.OwedRun, st.Outcome)
}

// noteQuestionEdits records, for the challenges that keep a question table, the question's
// last edit as the probe saw it, so an edit by someone else is noticed.
func (c *Cycle) noteQuestionEdits(ctx context.Context, chs []*config.Challenge, probed map[int64]scraper.QuestionInfo) {
	for _, ch := range chs {
		in, ok := probed[ch.QuestionID]
		if qb := ch.QuestionBoard; !ok || qb == nil || !qb.Enabled || in.LastEditDate == 0 {
			continue
		}
		if err := c.Store.SetQuestionSiteEdit(ctx, ch.Name, in.LastEditDate); err != nil {
			c.Log.Error("question table: record the question's last edit", "challenge", ch.Name, "err", err)
		}
	}
}

// boardURL is where the full board can be read, for the table's and the comments' links:
// board_url when the host set it, else the first sink that has a web page for it.
func (c *Cycle) boardURL(challenge string) string {
	if u := c.Config.BoardURL; u != "" {
		return strings.TrimRight(u, "/") + "/" + url.PathEscape(challenge) + ".md"
	}
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
