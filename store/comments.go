package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Comments on answers not entered (cron/comments.go): one row per answer revision kothd
// decided to tell about, so it comments once per revision, never again for the same reason,
// and `kothd status` can count what was posted and refused.
const commentsSchema = `CREATE TABLE answer_comments (
	challenge  TEXT NOT NULL,
	answer_id  INTEGER NOT NULL,
	revision   INTEGER NOT NULL,            -- revisions.id of the answer's content
	reason     TEXT NOT NULL,               -- status and reason the comment says (the same one is never said twice)
	state      TEXT NOT NULL,               -- posted, queued (max_per_cycle), owed (the API or token refused), refused (for good), same (said already)
	comment_id INTEGER NOT NULL DEFAULT 0,  -- the site's, when posted
	at         INTEGER NOT NULL,            -- last change (Unix seconds)
	detail     TEXT NOT NULL DEFAULT '',    -- why refused or owed, in words
	PRIMARY KEY (challenge, answer_id, revision)
);`

// Comment states.
const (
	CommentPosted  = "posted"
	CommentQueued  = "queued" // held by max_per_cycle: the next cycle runs for it
	CommentOwed    = "owed"   // held by a refusal of the token, the account or a throttle
	CommentRefused = "refused"
	CommentSame    = "same" // not posted: the answer's last comment said the same
)

// AnswerComment is what kothd did about one answer revision.
type AnswerComment struct {
	AnswerID  int64
	Revision  int64
	Reason    string
	State     string
	CommentID int64
	At        int64
	Detail    string
}

// AnswerComment returns the row of an answer revision, nil when kothd never decided about it.
func (s *Store) AnswerComment(ctx context.Context, challenge string, answerID, revision int64) (*AnswerComment, error) {
	c := AnswerComment{AnswerID: answerID, Revision: revision}
	err := s.db.QueryRowContext(ctx, `SELECT reason, state, comment_id, at, detail FROM answer_comments WHERE challenge = ? AND answer_id = ? AND revision = ?`,
		challenge, answerID, revision).Scan(&c.Reason, &c.State, &c.CommentID, &c.At, &c.Detail)
	if err == sql.ErrNoRows {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("comment on answer %d of %s: %w", answerID, challenge, err)
	}
	return &c, nil
}

// LastPostedReason is the reason of the last comment posted on an answer ("" when none).
func (s *Store) LastPostedReason(ctx context.Context, challenge string, answerID int64) (string, error) {
	var r string
	err := s.db.QueryRowContext(ctx, `SELECT reason FROM answer_comments WHERE challenge = ? AND answer_id = ? AND state = 'posted' ORDER BY at DESC, revision DESC LIMIT 1`,
		challenge, answerID).Scan(&r)
	if err == sql.ErrNoRows {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("comments on answer %d of %s: %w", answerID, challenge, err)
	}
	return r, nil
}

// RecordAnswerComment sets what kothd did about an answer revision, at the caller's time.
func (s *Store) RecordAnswerComment(ctx context.Context, challenge string, c AnswerComment, at time.Time) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO answer_comments (challenge, answer_id, revision, reason, state, comment_id, at, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (challenge, answer_id, revision) DO UPDATE SET reason = excluded.reason, state = excluded.state, comment_id = excluded.comment_id, at = excluded.at, detail = excluded.detail`,
		challenge, c.AnswerID, c.Revision, c.Reason, c.State, c.CommentID, at.Unix(), c.Detail)
	if err != nil {
		return fmt.Errorf("record the comment on answer %d of %s: %w", c.AnswerID, challenge, err)
	}
	return nil
}

// CommentCounts is how many answer revisions are in each state, for status.
type CommentCounts struct {
	Posted, Queued, Owed, Refused, Same int
	LastRefusal                         string // the detail of the last refusal or owed comment, "" when none
}

// CommentCounts counts a challenge's comments by state.
func (s *Store) CommentCounts(ctx context.Context, challenge string) (CommentCounts, error) {
	var c CommentCounts
	rows, err := s.db.QueryContext(ctx, `SELECT state, COUNT(*) FROM answer_comments WHERE challenge = ? GROUP BY state`, challenge)
	if err != nil {
		return c, fmt.Errorf("comments of %s: %w", challenge, err)
	}
	defer rows.Close()
	for rows.Next() {
		var st string
		var n int
		if err := rows.Scan(&st, &n); err != nil {
			return c, fmt.Errorf("comments of %s: %w", challenge, err)
		}
		switch st {
		case CommentPosted:
			c.Posted = n
		case CommentQueued:
			c.Queued = n
		case CommentOwed:
			c.Owed = n
		case CommentRefused:
			c.Refused = n
		case CommentSame:
			c.Same = n
		}
	}
	if err := rows.Err(); err != nil {
		return c, err
	}
	err = s.db.QueryRowContext(ctx, `SELECT detail FROM answer_comments WHERE challenge = ? AND state IN ('refused', 'owed') AND detail != '' ORDER BY at DESC LIMIT 1`, challenge).Scan(&c.LastRefusal)
	if err != nil && err != sql.ErrNoRows {
		return c, fmt.Errorf("comments of %s: %w", challenge, err)
	}
	return c, nil
}

// CommentsQueued counts the comments held by max_per_cycle on answers' current revisions:
// work a cycle must do although the question shows no activity.
func (s *Store) CommentsQueued(ctx context.Context, challenge string) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM answer_comments c JOIN answers a
		ON a.challenge = c.challenge AND a.answer_id = c.answer_id AND a.revision_id = c.revision
		WHERE c.challenge = ? AND c.state = 'queued'`, challenge).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("comments of %s: %w", challenge, err)
	}
	return n, nil
}
