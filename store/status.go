package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
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
	LastAttempt  *Run    // the newest run whatever its state (failed, interrupted, done)
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
	if st.LastAttempt, err = s.LastAttempt(ctx, challenge); err != nil {
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

// AnswerBot is one bot (or one refused answer) of a challenge's active answers, as a
// participant asking "why is my bot not in?" needs it.
type AnswerBot struct {
	AnswerID int64
	Author   string
	Title    string
	Language string
	Bot      string // the bot's name ("" when the answer was never prepared)
	Status   string // ok, rejected, failed build, failed validation, excluded; "" not prepared yet
	Reason   string
}

// AnswerBots lists the bots of a challenge's active answers (current revisions), by answer
// id then bot name. An answer without any bot row yet (fetched, not prepared) appears once
// with an empty status.
func (s *Store) AnswerBots(ctx context.Context, challenge string) ([]AnswerBot, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT a.answer_id, a.author, COALESCE(r.title, ''), COALESCE(r.language, ''),
			COALESCE(b.name, ''), COALESCE(b.status, ''), COALESCE(NULLIF(b.reason, ''), r.reject, '')
		FROM answers a LEFT JOIN revisions r ON r.id = a.revision_id LEFT JOIN bots b ON b.revision_id = a.revision_id
		WHERE a.challenge = ? AND a.state = 'active' ORDER BY a.answer_id, b.name`, challenge)
	if err != nil {
		return nil, fmt.Errorf("bots of %s: %w", challenge, err)
	}
	defer rows.Close()
	var out []AnswerBot
	for rows.Next() {
		var b AnswerBot
		if err := rows.Scan(&b.AnswerID, &b.Author, &b.Title, &b.Language, &b.Bot, &b.Status, &b.Reason); err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// PublishFailedEvent is the event kind the cycle records when a sink fails; its detail is
// "<target>: <error>".
const PublishFailedEvent = "publish-failed"

// PublicationState is what status says about one target: the last good publication, and
// the newest failure after it (if any).
type PublicationState struct {
	Target   string
	At       int64 // last success; 0: never
	RunID    int64
	Commit   string
	FailedAt int64 // the newest failure after the last success; 0: none
	Failure  string
}

// Publications reports every target a challenge was (or failed to be) published to, in
// the order first used.
func (s *Store) Publications(ctx context.Context, challenge string) ([]PublicationState, error) {
	byTarget := map[string]*PublicationState{}
	var order []string
	get := func(target string) *PublicationState {
		p, ok := byTarget[target]
		if !ok {
			p = &PublicationState{Target: target}
			byTarget[target] = p
			order = append(order, target)
		}
		return p
	}
	rows, err := s.db.QueryContext(ctx, `SELECT target, at, COALESCE(run_id, 0), commit_id FROM publications WHERE challenge = ? ORDER BY id`, challenge)
	if err != nil {
		return nil, fmt.Errorf("publications of %s: %w", challenge, err)
	}
	for rows.Next() {
		var target, commit string
		var at, run int64
		if err := rows.Scan(&target, &at, &run, &commit); err != nil {
			rows.Close()
			return nil, err
		}
		p := get(target)
		p.At, p.RunID, p.Commit = at, run, commit
	}
	rows.Close()
	fails, err := s.db.QueryContext(ctx, `SELECT at, detail FROM events WHERE challenge = ? AND kind = ? ORDER BY id`, challenge, PublishFailedEvent)
	if err != nil {
		return nil, err
	}
	defer fails.Close()
	for fails.Next() {
		var at int64
		var detail string
		if err := fails.Scan(&at, &detail); err != nil {
			return nil, err
		}
		target, why, _ := strings.Cut(detail, ": ")
		p := get(target)
		p.FailedAt, p.Failure = at, why
	}
	if err := fails.Err(); err != nil {
		return nil, err
	}
	out := make([]PublicationState, 0, len(order))
	for _, t := range order {
		p := *byTarget[t]
		if p.FailedAt != 0 && p.FailedAt < p.At {
			p.FailedAt, p.Failure = 0, "" // fixed by a later success
		}
		out = append(out, p)
	}
	return out, nil
}
