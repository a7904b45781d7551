package store

import (
	"context"
	"database/sql"
	"fmt"
)

// Event is one recorded change.
type Event struct {
	At       int64
	Kind     string
	AnswerID int64
	Detail   string
}

// Status summarises a challenge for `kothd status`.
type Status struct {
	Challenge    string
	Answers      int // active answers
	Deleted      int
	Accepted     int   // bots with status ok in current revisions
	LastFetch    int64 // 0: never
	LastRun      *Run
	SinceLastRun []Event // changes recorded after the last finished run started
}

// Status reads a challenge's summary.
func (s *Store) Status(ctx context.Context, challenge string) (*Status, error) {
	st := &Status{Challenge: challenge}
	var lastFetch sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT last_fetch FROM challenges WHERE name = ?`, challenge).Scan(&lastFetch)
	if err != nil && err != sql.ErrNoRows {
		return nil, fmt.Errorf("status of %s: %w", challenge, err)
	}
	st.LastFetch = lastFetch.Int64
	if err := s.db.QueryRowContext(ctx, `SELECT
			COALESCE(SUM(state = 'active'), 0), COALESCE(SUM(state = 'deleted'), 0) FROM answers WHERE challenge = ?`, challenge).Scan(&st.Answers, &st.Deleted); err != nil {
		return nil, err
	}
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM bots b JOIN answers a ON a.revision_id = b.revision_id
			WHERE a.challenge = ? AND a.state = 'active' AND b.status = 'ok'`, challenge).Scan(&st.Accepted); err != nil {
		return nil, err
	}
	if st.LastRun, err = s.LastRun(ctx, challenge); err != nil {
		return nil, err
	}
	since := int64(0)
	if st.LastRun != nil {
		since = st.LastRun.Started
	}
	if st.SinceLastRun, err = s.Events(ctx, challenge, since); err != nil {
		return nil, err
	}
	return st, nil
}

// Events returns a challenge's events at or after a time, oldest first.
func (s *Store) Events(ctx context.Context, challenge string, since int64) ([]Event, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT at, kind, COALESCE(answer_id, 0), detail FROM events WHERE challenge = ? AND at >= ? ORDER BY id`, challenge, since)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var e Event
		if err := rows.Scan(&e.At, &e.Kind, &e.AnswerID, &e.Detail); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// QuestionState is what the last fetch saw of a question, for the cheap probe.
func (s *Store) QuestionState(ctx context.Context, challenge string) (answerCount int, lastActivity int64, err error) {
	var n, act sql.NullInt64
	err = s.db.QueryRowContext(ctx, `SELECT answer_count, last_activity FROM challenges WHERE name = ?`, challenge).Scan(&n, &act)
	if err == sql.ErrNoRows {
		return -1, 0, nil
	}
	return int(n.Int64), act.Int64, err
}

// SetQuestionState records a probe's answer count and last activity after a complete fetch.
func (s *Store) SetQuestionState(ctx context.Context, challenge string, answerCount int, lastActivity int64) error {
	_, err := s.db.ExecContext(ctx, `UPDATE challenges SET answer_count = ?, last_activity = ? WHERE name = ?`, answerCount, lastActivity, challenge)
	return err
}

// RecordPublication notes what was published where.
func (s *Store) RecordPublication(ctx context.Context, challenge string, runID int64, target, hash, commit string) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO publications (challenge, run_id, target, hash, commit_id, at) VALUES (?, ?, ?, ?, ?, ?)`,
		challenge, nullable(runID), target, hash, commit, s.now().Unix())
	return err
}

// LastPublication returns the hash last published to a target, or "".
func (s *Store) LastPublication(ctx context.Context, challenge, target string) (string, error) {
	var h string
	err := s.db.QueryRowContext(ctx, `SELECT hash FROM publications WHERE challenge = ? AND target = ? ORDER BY id DESC LIMIT 1`, challenge, target).Scan(&h)
	if err == sql.ErrNoRows {
		return "", nil
	}
	return h, err
}
