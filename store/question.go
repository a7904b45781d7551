package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// The question's own leaderboard (cron/question.go): one row per challenge that has one,
// saying what kothd last did about it, so `kothd status` can show it and the next cycle
// knows what the question holds.
const questionBoardSchema = `CREATE TABLE question_boards (
	challenge  TEXT PRIMARY KEY,
	edited_at  INTEGER NOT NULL DEFAULT 0,  -- last successful edit (Unix seconds); 0: never
	edited_run INTEGER NOT NULL DEFAULT 0,  -- the run that edit showed
	ranking    TEXT NOT NULL DEFAULT '',    -- JSON (publisher.Ranking) of the table the question holds
	checked_at INTEGER NOT NULL DEFAULT 0,  -- last time kothd looked
	outcome    TEXT NOT NULL DEFAULT '',    -- what it did then (QuestionBoard.Outcome)
	detail     TEXT NOT NULL DEFAULT '',    -- why, in words, with what the host must do
	owed_run   INTEGER NOT NULL DEFAULT 0   -- a run whose table is still to go in; 0: none
);`

// QuestionBoard is what kothd knows of a challenge's question table.
type QuestionBoard struct {
	EditedAt  int64
	EditedRun int64
	Ranking   []byte // JSON; nil when never edited
	CheckedAt int64
	Outcome   string // edited, unchanged, waiting, failed, no-markers, too-long
	Detail    string
	OwedRun   int64
	// OwnEditDate is the question's last_edit_date (the site's clock) after kothd's last
	// edit, or when kothd last found its table there; SiteEditDate the last_edit_date the
	// probe last saw. SiteEditDate > OwnEditDate: someone else edited the question since.
	OwnEditDate, SiteEditDate int64
}

// QuestionBoard returns the state of a challenge's question table, nil when kothd never
// looked at it.
func (s *Store) QuestionBoard(ctx context.Context, challenge string) (*QuestionBoard, error) {
	var q QuestionBoard
	var ranking string
	err := s.db.QueryRowContext(ctx, `SELECT edited_at, edited_run, ranking, checked_at, outcome, detail, owed_run, own_edit_date, site_edit_date FROM question_boards WHERE challenge = ?`, challenge).
		Scan(&q.EditedAt, &q.EditedRun, &ranking, &q.CheckedAt, &q.Outcome, &q.Detail, &q.OwedRun, &q.OwnEditDate, &q.SiteEditDate)
	if err == sql.ErrNoRows {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("question table of %s: %w", challenge, err)
	}
	if ranking != "" {
		q.Ranking = []byte(ranking)
	}
	return &q, nil
}

// RecordQuestionEdit notes a successful edit: the table the question now holds, of run.
// at is the caller's clock (the one min_interval is measured by); siteEdit the question's
// last_edit_date as the API gave it with the body that holds the table (0: not known).
func (s *Store) RecordQuestionEdit(ctx context.Context, challenge string, at time.Time, run int64, ranking []byte, detail string, siteEdit int64) error {
	now := at.Unix()
	_, err := s.db.ExecContext(ctx, `INSERT INTO question_boards (challenge, edited_at, edited_run, ranking, checked_at, outcome, detail, owed_run, own_edit_date, site_edit_date)
		VALUES (?, ?, ?, ?, ?, 'edited', ?, 0, ?, ?)
		ON CONFLICT (challenge) DO UPDATE SET edited_at = excluded.edited_at, edited_run = excluded.edited_run, ranking = excluded.ranking,
			checked_at = excluded.checked_at, outcome = 'edited', detail = excluded.detail, owed_run = 0,
			own_edit_date = excluded.own_edit_date, site_edit_date = MAX(site_edit_date, excluded.own_edit_date)`,
		challenge, now, run, string(ranking), now, detail, siteEdit, siteEdit)
	if err != nil {
		return fmt.Errorf("record the question table of %s: %w", challenge, err)
	}
	return nil
}

// RecordQuestionCheck notes a look that did not edit: its outcome, why, and the run whose
// table is still owed (0 when the question holds what it should), at the caller's time.
func (s *Store) RecordQuestionCheck(ctx context.Context, challenge string, at time.Time, outcome, detail string, owedRun int64) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO question_boards (challenge, checked_at, outcome, detail, owed_run) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (challenge) DO UPDATE SET checked_at = excluded.checked_at, outcome = excluded.outcome, detail = excluded.detail, owed_run = excluded.owed_run`,
		challenge, at.Unix(), outcome, detail, owedRun)
	if err != nil {
		return fmt.Errorf("record the question table of %s: %w", challenge, err)
	}
	return nil
}

// SetQuestionSiteEdit records the question's last_edit_date as the probe saw it.
func (s *Store) SetQuestionSiteEdit(ctx context.Context, challenge string, date int64) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO question_boards (challenge, site_edit_date) VALUES (?, ?)
		ON CONFLICT (challenge) DO UPDATE SET site_edit_date = excluded.site_edit_date`, challenge, date)
	if err != nil {
		return fmt.Errorf("record the question's last edit of %s: %w", challenge, err)
	}
	return nil
}
