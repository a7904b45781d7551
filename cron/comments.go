package cron

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kothd/kothd/internal/mdtext"
	"github.com/kothd/kothd/publisher"
	"github.com/kothd/kothd/scraper"
	"github.com/kothd/kothd/store"
)

// Comments on answers not entered (config answer_comments; docs/leaderboard.md, "Comments
// on answers not entered"): a participant reads their answer, not the board, so when an
// answer's current revision is not entered (no code, unknown language, build error, failed
// validation, a name taken, benched for faults) kothd says why in one comment on it. Once
// per revision of the answer, never again for the same reason, at most max_per_cycle a
// cycle; an answer entered gets none. Like the question's table, nothing here stops play
// or the publications: every outcome is a log line and a row in the store (status).

// notEntered is one answer's reason to be told, as the comment says it.
type notEntered struct {
	answerID int64
	reason   string // status and reason: what "the same reason" compares
	fault    string // the first fault's input, when there is one
	benched  bool   // only benched bots: the answer is on the board, but sat out
}

// commentOnAnswers posts the comments b's challenge owes its participants.
func (c *Cycle) commentOnAnswers(ctx context.Context, b *publisher.Board) {
	ch, err := c.Config.Challenge(b.Challenge)
	if err != nil || ch.AnswerComments == nil || !ch.AnswerComments.Enabled {
		return
	}
	ctx = context.WithoutCancel(ctx) // record what was posted even when the daemon is stopping
	todo := answersToTell(b)
	if len(todo) == 0 {
		return
	}
	ed := c.Question
	if ed == nil || ed.API == nil {
		c.printf("%s: comments: no Stack Exchange API client (a snapshot run comments on nothing)\n", ch.Name)
		return
	}
	revs, err := c.Store.CurrentRevisions(ctx, ch.Name)
	if err != nil {
		c.Log.Error("comments: read the answers' revisions", "challenge", ch.Name, "err", err)
		return
	}
	// A missing credential is found before any request, and every comment waits for it.
	stop := ed.API.CanWrite(ed.Token)
	stopWhy := ""
	if stop != nil {
		stopWhy = stop.Error() + ": " + scraper.WriteAdvice(stop)
	}
	posted := 0
	now := c.questionNow()
	for _, t := range todo {
		rev, ok := revs[t.answerID]
		if !ok {
			continue
		}
		prev, err := c.Store.AnswerComment(ctx, ch.Name, t.answerID, rev.ID)
		if err != nil {
			c.Log.Error("comments: read", "challenge", ch.Name, "answer", t.answerID, "err", err)
			return
		}
		if prev != nil && prev.State != store.CommentOwed && prev.State != store.CommentQueued {
			continue // told (or refused for good, or said already) for this revision
		}
		row := store.AnswerComment{AnswerID: t.answerID, Revision: rev.ID, Reason: t.reason}
		record := func() {
			if err := c.Store.RecordAnswerComment(ctx, ch.Name, row, now); err != nil {
				c.Log.Error("comments: record", "challenge", ch.Name, "answer", t.answerID, "err", err)
			}
		}
		last, err := c.Store.LastPostedReason(ctx, ch.Name, t.answerID)
		if err != nil {
			c.Log.Error("comments: read", "challenge", ch.Name, "answer", t.answerID, "err", err)
			return
		}
		switch {
		case last == t.reason:
			row.State, row.Detail = store.CommentSame, "an earlier comment on the answer says the same"
			record()
			continue
		case stop != nil:
			row.State, row.Detail = store.CommentOwed, stopWhy
			record()
			continue
		case posted >= ch.AnswerComments.PerCycle():
			row.State, row.Detail = store.CommentQueued, fmt.Sprintf("answer_comments.max_per_cycle (%d) reached; a later cycle posts it", ch.AnswerComments.PerCycle())
			record()
			continue
		}
		text := commentText(t, rev, c.boardURL(ch.Name))
		cm, err := ed.API.AddComment(ctx, t.answerID, text, ed.Token)
		if err != nil {
			advice, all := scraper.CommentAdvice(err)
			row.State, row.Detail = store.CommentRefused, strings.TrimSuffix(err.Error()+": "+advice, ": ")
			if all {
				row.State, stop, stopWhy = store.CommentOwed, err, row.Detail
			}
			record()
			c.watch().Commented(ch.Name, false)
			c.Log.Error("comment on an answer refused", "challenge", ch.Name, "answer", t.answerID, "err", err, "advice", advice)
			c.printf("%s: comment on answer %d refused: %s\n", ch.Name, t.answerID, row.Detail)
			continue
		}
		posted++
		row.State, row.CommentID = store.CommentPosted, cm.CommentID
		record()
		c.watch().Commented(ch.Name, true)
		c.Log.Info("commented on an answer not entered", "challenge", ch.Name, "answer", t.answerID, "comment", cm.CommentID, "reason", t.reason)
		c.printf("%s: commented on answer %d: %s\n", ch.Name, t.answerID, t.reason)
	}
	if stop != nil {
		c.Log.Warn("comments wait", "challenge", ch.Name, "why", stopWhy)
	}
}

// answersToTell lists, by answer, what the board says of answers not entered: its "Not
// entered" rows (one answer may have several: one per class) and the bots benched for
// faults.
func answersToTell(b *publisher.Board) []notEntered {
	by := map[int64]*notEntered{}
	var order []int64
	add := func(id int64, reason, fault string, benched bool) {
		if id == 0 {
			return
		}
		t := by[id]
		if t == nil {
			t = &notEntered{answerID: id, benched: benched}
			by[id] = t
			order = append(order, id)
		}
		t.benched = t.benched && benched
		if t.reason != "" {
			t.reason += "; "
		}
		t.reason += reason
		if t.fault == "" {
			t.fault = fault
		}
	}
	for _, r := range b.NotEntered {
		who := ""
		if r.Name != "" {
			who = r.Name + ": "
		}
		add(r.AnswerID, who+r.Status+": "+r.Reason, "", false)
	}
	for _, r := range b.Rows {
		if r.Benched != nil && !r.Baseline {
			add(r.AnswerID, r.Bot+": "+r.Benched.Text(), firstInput(r.FirstFault), true)
		}
	}
	slices.Sort(order)
	out := make([]notEntered, len(order))
	for i, id := range order {
		out[i] = *by[id]
	}
	return out
}

// firstInput is the first fault as the board holds it ("timeout: …\ninput: …"), on one line.
func firstInput(f string) string {
	return strings.Join(strings.Fields(strings.Replace(f, "\ninput: ", "; input: ", 1)), " ")
}

// commentText is the comment: why the revision is not entered, the first fault when there
// is one, and the board's link, within the site's 600 characters. The reason and the fault
// are the answer's own words (a heading, a build's output, a bot's crash) and are made inert.
func commentText(t notEntered, rev store.Revision, board string) string {
	which := "The current revision of this answer"
	if rev.Site > 0 {
		which = fmt.Sprintf("Revision %d of this answer", rev.Site)
	}
	head := "kothd: " + which + " is not entered in the leaderboard. "
	if t.benched {
		head = "kothd: " + which + " was benched for faults in the last run. "
	}
	tail := ""
	if board != "" {
		tail = " Leaderboard: " + board
	}
	room := scraper.MaxCommentChars - utf8.RuneCountInString(head) - utf8.RuneCountInString(tail) - 1
	reason, fault := t.reason, t.fault
	// The fault gets what the reason leaves, at least a third when both are long.
	const faultHead = ". First fault: "
	rs := inertFit(reason, room)
	if fault != "" {
		fr := room - utf8.RuneCountInString(rs) - len(faultHead)
		if fr < room/3 {
			rs = inertFit(reason, room-room/3)
			fr = room - utf8.RuneCountInString(rs) - len(faultHead)
		}
		if fr > 20 {
			rs = strings.TrimSuffix(rs, ".") + faultHead + inertFit(fault, fr)
		}
	}
	if !strings.HasSuffix(rs, ".") {
		rs += "."
	}
	return head + rs + tail
}

// inertFit is s made inert, cut so that the result has at most n characters.
func inertFit(s string, n int) string {
	if n <= 1 {
		return ""
	}
	r := []rune(strings.Join(strings.Fields(mdtext.Visible(s)), " "))
	for k := len(r); k >= 0; k = min(k-1, k*9/10) {
		cut := string(r[:k])
		if k < len(r) {
			cut += "…"
		}
		if out := CommentInert(cut); utf8.RuneCountInString(out) <= n {
			return out
		}
	}
	return ""
}

// CommentInert makes text inert in the sites' comment mini-markdown: the characters that
// make code, bold, italic and links are escaped with a backslash (a link needs its [text]:
// parentheses alone do nothing); no URL can form (the colon
// of "://" and the dot after "www" become their full-width forms) and no @name pings anyone
// (the at sign too). The text still reads as it was written.
func CommentInert(s string) string {
	var w strings.Builder
	r := []rune(s)
	for i, c := range r {
		switch {
		case c == '\\' || c == '`' || c == '*' || c == '_' || c == '[' || c == ']':
			w.WriteRune('\\')
			w.WriteRune(c)
		case c == '@':
			w.WriteRune('＠')
		case c == ':' && i+2 < len(r) && r[i+1] == '/' && r[i+2] == '/':
			w.WriteRune('：')
		case c == '.' && i >= 3 && strings.EqualFold(string(r[i-3:i]), "www") && (i == 3 || !unicode.IsLetter(r[i-4])):
			w.WriteRune('．')
		case unicode.IsControl(c):
			w.WriteRune(' ')
		default:
			w.WriteRune(c)
		}
	}
	return w.String()
}

// commentsQueued says why a cycle must run for the comments although the question shows
// no activity: comments held by max_per_cycle.
func (c *Cycle) commentsQueued(ctx context.Context, challenge string) string {
	ch, err := c.Config.Challenge(challenge)
	if err != nil || ch.AnswerComments == nil || !ch.AnswerComments.Enabled {
		return ""
	}
	n, err := c.Store.CommentsQueued(ctx, challenge)
	if err != nil || n == 0 {
		return ""
	}
	return fmt.Sprintf("%d comments on answers wait for answer_comments.max_per_cycle", n)
}
