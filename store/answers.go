package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/kothd/kothd/scraper"
)

// Change is what a fetch found about one answer compared with the store.
type Change struct {
	AnswerID int64
	Kind     string // new, edited, unchanged, deleted, restored
	Title    string
	Author   string
}

// RevisionKey is the content identity of a submission: its files' hash, or for a rejected
// answer the reason (so an edit that changes why it is rejected is still an edit).
func RevisionKey(sub scraper.Submission) string {
	if sub.Reject == "" && sub.Hash != "" {
		return sub.Hash
	}
	h := sha256.Sum256([]byte(sub.Reject + "\x00" + sub.Title + "\x00" + scraper.HashFiles(sub.Files)))
	return "rejected:" + hex.EncodeToString(h[:])
}

// RecordAnswers stores the submissions of one complete fetch of a challenge and classifies
// every answer: new, edited (revision key changed), unchanged, restored (was deleted), or
// deleted (in the store, absent from this fetch). Every change but "unchanged" becomes an
// event. Old revisions are kept; deleted answers keep their history. Answers are keyed by
// challenge and answer id: two challenges on one question keep their own records.
func (s *Store) RecordAnswers(ctx context.Context, challenge string, questionID int64, subs []scraper.Submission) ([]Change, error) {
	now := s.now().Unix()
	var changes []Change
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO challenges (name, question_id, last_fetch, answer_count) VALUES (?, ?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET question_id = excluded.question_id, last_fetch = excluded.last_fetch, answer_count = excluded.answer_count`,
			challenge, questionID, now, len(subs)); err != nil {
			return fmt.Errorf("record challenge %s: %w", challenge, err)
		}
		seen := map[int64]bool{}
		for _, sub := range subs {
			seen[sub.AnswerID] = true
			c, err := recordOne(ctx, tx, challenge, sub, now)
			if err != nil {
				return fmt.Errorf("record answer %d: %w", sub.AnswerID, err)
			}
			changes = append(changes, c)
		}
		rows, err := tx.QueryContext(ctx, `SELECT a.answer_id, a.author, COALESCE(r.title, '') FROM answers a LEFT JOIN revisions r ON r.id = a.revision_id
			WHERE a.challenge = ? AND a.state = 'active' ORDER BY a.answer_id`, challenge)
		if err != nil {
			return err
		}
		var gone []Change
		for rows.Next() {
			var c Change
			if err := rows.Scan(&c.AnswerID, &c.Author, &c.Title); err != nil {
				rows.Close()
				return err
			}
			if !seen[c.AnswerID] {
				c.Kind = "deleted"
				gone = append(gone, c)
			}
		}
		rows.Close()
		for _, c := range gone {
			if _, err := tx.ExecContext(ctx, `UPDATE answers SET state = 'deleted' WHERE challenge = ? AND answer_id = ?`, challenge, c.AnswerID); err != nil {
				return err
			}
			if err := addEvent(ctx, tx, challenge, now, c); err != nil {
				return err
			}
		}
		changes = append(changes, gone...)
		return nil
	})
	return changes, err
}

func recordOne(ctx context.Context, tx *sql.Tx, challenge string, sub scraper.Submission, now int64) (Change, error) {
	c := Change{AnswerID: sub.AnswerID, Title: sub.Title, Author: sub.Author}
	key := RevisionKey(sub)
	var state, curKey sql.NullString
	err := tx.QueryRowContext(ctx, `SELECT a.state, r.hash FROM answers a LEFT JOIN revisions r ON r.id = a.revision_id WHERE a.challenge = ? AND a.answer_id = ?`,
		challenge, sub.AnswerID).Scan(&state, &curKey)
	switch {
	case err == sql.ErrNoRows:
		c.Kind = "new"
		if _, err := tx.ExecContext(ctx, `INSERT INTO answers (answer_id, challenge, author, created, state, first_seen, last_seen) VALUES (?, ?, ?, ?, 'active', ?, ?)`,
			sub.AnswerID, challenge, sub.Author, sub.Created, now, now); err != nil {
			return c, err
		}
	case err != nil:
		return c, err
	case state.String == "deleted":
		c.Kind = "restored"
	case curKey.String != key:
		c.Kind = "edited"
	default:
		c.Kind = "unchanged"
	}
	if _, err := tx.ExecContext(ctx, `UPDATE answers SET author = ?, state = 'active', last_seen = ? WHERE challenge = ? AND answer_id = ?`, sub.Author, now, challenge, sub.AnswerID); err != nil {
		return c, err
	}
	if c.Kind == "unchanged" {
		return c, nil
	}
	files, err := json.Marshal(sub.Files)
	if err != nil {
		return c, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO revisions (challenge, answer_id, hash, title, language, files, reject, edited, seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (challenge, answer_id, hash) DO UPDATE SET seen = excluded.seen`,
		challenge, sub.AnswerID, key, sub.Title, sub.Language, string(files), sub.Reject, sub.Edited, now); err != nil {
		return c, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE answers SET revision_id = (SELECT id FROM revisions WHERE challenge = ? AND answer_id = ? AND hash = ?) WHERE challenge = ? AND answer_id = ?`,
		challenge, sub.AnswerID, key, challenge, sub.AnswerID); err != nil {
		return c, err
	}
	return c, addEvent(ctx, tx, challenge, now, c)
}

func addEvent(ctx context.Context, tx *sql.Tx, challenge string, at int64, c Change) error {
	detail := fmt.Sprintf("%s by %s", c.Title, c.Author)
	_, err := tx.ExecContext(ctx, `INSERT INTO events (challenge, at, kind, answer_id, detail) VALUES (?, ?, ?, ?, ?)`, challenge, at, c.Kind, c.AnswerID, detail)
	return err
}

// SetBotStatus records the preparation outcome of a bot of an answer's current revision
// in a challenge (ok, rejected, failed build, failed validation, excluded) with a reason.
func (s *Store) SetBotStatus(ctx context.Context, challenge string, answerID int64, name, status, reason string) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO bots (revision_id, name, status, reason, updated)
		SELECT revision_id, ?, ?, ?, ? FROM answers WHERE challenge = ? AND answer_id = ? AND revision_id IS NOT NULL
		ON CONFLICT (revision_id, name) DO UPDATE SET status = excluded.status, reason = excluded.reason, updated = excluded.updated`,
		name, status, reason, s.now().Unix(), challenge, answerID)
	if err != nil {
		return fmt.Errorf("record status of bot %s of answer %d: %w", name, answerID, err)
	}
	return nil
}

// BotStatus returns the recorded status of a bot of an answer's current revision in a
// challenge, or "".
func (s *Store) BotStatus(ctx context.Context, challenge string, answerID int64, name string) (string, error) {
	var st string
	err := s.db.QueryRowContext(ctx, `SELECT b.status FROM bots b JOIN answers a ON a.revision_id = b.revision_id
		WHERE a.challenge = ? AND a.answer_id = ? AND b.name = ?`, challenge, answerID, name).Scan(&st)
	if err == sql.ErrNoRows {
		return "", nil
	}
	return st, err
}

// AddEvent records an event that is not about an answer's content (a rank move).
func (s *Store) AddEvent(ctx context.Context, challenge, kind string, answerID int64, detail string) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO events (challenge, at, kind, answer_id, detail) VALUES (?, ?, ?, ?, ?)`,
		challenge, s.now().Unix(), kind, nullable(answerID), detail)
	return err
}
