package store

import (
	"context"
	"database/sql"
	"fmt"
)

// Pending says what the store knows is unfinished for a challenge, whatever the API says:
// a run that did not finish (it is played again with its seed), a finished run without
// its board, or the last board not yet published to one of the targets (never, or only a
// failed attempt). It returns "" when nothing is pending.
func (s *Store) Pending(ctx context.Context, challenge string, targets []string) (string, error) {
	prev, err := s.LastAttempt(ctx, challenge)
	if err != nil || prev == nil {
		return "", err
	}
	if prev.Interrupted() {
		return fmt.Sprintf("run %d was interrupted (%s)", prev.ID, prev.State), nil
	}
	last, err := s.LastRun(ctx, challenge)
	if err != nil || last == nil {
		return "", err
	}
	if last.BoardMissing() {
		return fmt.Sprintf("run %d finished but its board was never stored", last.ID), nil
	}
	for _, t := range targets {
		var run sql.NullInt64
		err := s.db.QueryRowContext(ctx, `SELECT MAX(run_id) FROM publications WHERE challenge = ? AND target = ?`, challenge, t).Scan(&run)
		if err != nil {
			return "", fmt.Errorf("publications of %s: %w", challenge, err)
		}
		if !run.Valid || run.Int64 < last.ID {
			return fmt.Sprintf("the board of run %d is not yet published to %s", last.ID, t), nil
		}
	}
	return "", nil
}
