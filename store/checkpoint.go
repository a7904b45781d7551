package store

import (
	"context"
	"database/sql"
	"fmt"
)

// A run's checkpoint: the state after its first games, replaced batch after batch while it
// plays and deleted when it ends, so that a run killed in the middle is resumed by the next
// cycle where its last batch ended instead of from game 0. A run has at most one.
const checkpointSchema = `CREATE TABLE run_checkpoints (
	run_id   INTEGER PRIMARY KEY REFERENCES runs(id),
	done     INTEGER NOT NULL,  -- games folded into state: 0..done-1
	state    BLOB NOT NULL,     -- the engine's encoding of its tallies (engine.Checkpoint)
	stats    TEXT NOT NULL,     -- JSON: each bot's fault accounting over those games
	saved_at INTEGER NOT NULL   -- Unix seconds
);`

// Checkpoint is a run's state after its first Done games.
type Checkpoint struct {
	RunID int64
	Done  int
	State []byte
	Stats []byte
	Saved int64
}

// SaveCheckpoint replaces the run's checkpoint, and counts its games as played, in one
// transaction: a crash leaves the previous checkpoint or this one, never a mixture.
func (s *Store) SaveCheckpoint(ctx context.Context, runID int64, done int, state, stats []byte) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO run_checkpoints (run_id, done, state, stats, saved_at) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (run_id) DO UPDATE SET done = excluded.done, state = excluded.state, stats = excluded.stats, saved_at = excluded.saved_at`,
			runID, done, state, string(stats), s.now().Unix()); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE runs SET games_played = ? WHERE id = ?`, done, runID)
		return err
	})
	if err != nil {
		return fmt.Errorf("checkpoint of run %d after %d games: %w", runID, done, err)
	}
	return nil
}

// LoadCheckpoint returns the run's checkpoint, or nil.
func (s *Store) LoadCheckpoint(ctx context.Context, runID int64) (*Checkpoint, error) {
	cp := Checkpoint{RunID: runID}
	var stats string
	err := s.db.QueryRowContext(ctx, `SELECT done, state, stats, saved_at FROM run_checkpoints WHERE run_id = ?`, runID).
		Scan(&cp.Done, &cp.State, &stats, &cp.Saved)
	if err == sql.ErrNoRows {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read checkpoint of run %d: %w", runID, err)
	}
	cp.Stats = []byte(stats)
	return &cp, nil
}

// MoveCheckpoint hands the checkpoint of an interrupted run to the run that resumes it
// (a new run with the same seed and bots), and returns it; nil when there is none. Should
// the new run be killed before its first batch, the next one resumes from this checkpoint
// still.
func (s *Store) MoveCheckpoint(ctx context.Context, from, to int64) (*Checkpoint, error) {
	var cp *Checkpoint
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, `UPDATE run_checkpoints SET run_id = ? WHERE run_id = ?`, to, from)
		if err != nil {
			return err
		}
		if n, _ := r.RowsAffected(); n == 0 {
			return nil
		}
		c := Checkpoint{RunID: to}
		var stats string
		if err := tx.QueryRowContext(ctx, `SELECT done, state, stats, saved_at FROM run_checkpoints WHERE run_id = ?`, to).
			Scan(&c.Done, &c.State, &stats, &c.Saved); err != nil {
			return err
		}
		c.Stats = []byte(stats)
		if _, err := tx.ExecContext(ctx, `UPDATE runs SET games_played = ? WHERE id = ?`, c.Done, to); err != nil {
			return err
		}
		cp = &c
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("move checkpoint of run %d to run %d: %w", from, to, err)
	}
	return cp, nil
}

// RestartRun records that a running run is played again from its first game with
// concurrency games in flight (cron/crowd.go): its checkpoint, saved at the old value, goes,
// so a kill from now on resumes nothing it played before.
func (s *Store) RestartRun(ctx context.Context, runID int64, concurrency int) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, `UPDATE runs SET concurrency = ?, games_played = 0 WHERE id = ? AND state = 'running'`, concurrency, runID)
		if err != nil {
			return err
		}
		if n, _ := r.RowsAffected(); n != 1 {
			return fmt.Errorf("no running run %d", runID)
		}
		return dropCheckpoint(ctx, tx, runID)
	})
	if err != nil {
		return fmt.Errorf("restart run %d with %d games in flight: %w", runID, concurrency, err)
	}
	return nil
}

// dropCheckpoint deletes the checkpoint of a run that failed: a failed run is never
// resumed.
func dropCheckpoint(ctx context.Context, tx *sql.Tx, runID int64) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM run_checkpoints WHERE run_id = ?`, runID)
	return err
}

// dropCheckpoints deletes the checkpoints of a finished run and of every earlier run of
// its challenge: those interrupted runs were resumed by it or will never be (a run resumes
// only the newest attempt).
func dropCheckpoints(ctx context.Context, tx *sql.Tx, runID int64) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM run_checkpoints WHERE run_id IN
		(SELECT id FROM runs WHERE id <= ? AND challenge = (SELECT challenge FROM runs WHERE id = ?))`, runID, runID)
	return err
}
