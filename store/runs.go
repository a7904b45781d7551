package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/kothd/kothd/engine"
)

// Run is one tournament run of a challenge.
type Run struct {
	ID           int64
	Challenge    string
	Seed         uint64
	Concurrency  int
	BotSet       string
	Started      int64
	Finished     int64
	GamesPlanned int
	GamesPlayed  int
	State        string
	Error        string
	Result       *engine.Result // nil unless done
	HasBoard     bool           // the published board is stored (see SetRunBoard)
}

// Standing is one bot's line of a finished run, with its fault accounting.
type Standing struct {
	Rank       int
	Bot        string
	AnswerID   int64
	Baseline   bool
	Score      float64
	Played     int
	Wins       int
	Errors     int
	Faults     map[engine.Outcome]int
	FirstFault string // JSON, '' if none
}

// InterruptedReason is the error of a run stopped by a signal (SIGTERM, SIGINT). The next
// cycle plays such a run again with its seed.
const InterruptedReason = "interrupted (the daemon stopped during the run)"

// AbandonedReason is the error of a run found still 'running' by a later start: the process
// that played it ended without recording why (killed, crashed, the machine went down).
const AbandonedReason = "interrupted (kothd ended during the run without recording why: killed, crashed or the machine went down)"

// Interrupted reports whether the run was cut short by the daemon stopping (as opposed to
// failing on its own); a run still marked running when read by a new daemon is one.
func (r *Run) Interrupted() bool {
	return r.State == "running" || r.State == "interrupted" || (r.State == "failed" && r.Error == InterruptedReason)
}

// BoardMissing reports a finished run whose board was never stored (a crash between the
// two, when they were not yet one transaction): there is nothing to publish, so the next
// cycle plays it again with its seed to make it.
func (r *Run) BoardMissing() bool { return r.State == "done" && !r.HasBoard }

// SetBotSet replaces a run's bot-set hash: an older kothd's hash of the same bots is
// rewritten in today's definition the first time a cycle recognises it (cron's
// legacyBotSetHash), so the bots are not played again for a change of definition.
func (s *Store) SetBotSet(ctx context.Context, runID int64, botset string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE runs SET botset = ? WHERE id = ?`, botset, runID)
	if err != nil {
		return fmt.Errorf("update bot set of run %d: %w", runID, err)
	}
	return nil
}

// StartRun records a run that is about to play. Runs left 'running' by a killed daemon are
// marked interrupted first, so they are never mistaken for results (the data directory's
// lock guarantees no other process is playing them).
func (s *Store) StartRun(ctx context.Context, challenge string, seed uint64, concurrency int, botset string, planned int) (int64, error) {
	now := s.now().Unix()
	var id int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE runs SET state = 'interrupted', error = ?, finished = ?
			WHERE challenge = ? AND state = 'running'`, AbandonedReason, now, challenge); err != nil {
			return err
		}
		r, err := tx.ExecContext(ctx, `INSERT INTO runs (challenge, seed, concurrency, botset, started, games_planned, state) VALUES (?, ?, ?, ?, ?, ?, 'running')`,
			challenge, int64(seed), concurrency, botset, now, planned)
		if err != nil {
			return err
		}
		id, err = r.LastInsertId()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("start run of %s: %w", challenge, err)
	}
	return id, nil
}

// FinishRun stores a run's table and standings in one transaction: a leaderboard is
// either wholly recorded or not at all.
func (s *Store) FinishRun(ctx context.Context, runID int64, res *engine.Result, standings []Standing) error {
	return s.FinishRunBoard(ctx, runID, res, standings, nil)
}

// FinishRunBoard is FinishRun storing the run's board (publisher JSON) in the same
// transaction, so no crash leaves a finished run without the board to publish.
func (s *Store) FinishRunBoard(ctx context.Context, runID int64, res *engine.Result, standings []Standing, board []byte) error {
	blob, err := json.Marshal(res)
	if err != nil {
		return err
	}
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		for _, st := range standings {
			faults, _ := json.Marshal(st.Faults)
			if _, err := tx.ExecContext(ctx, `INSERT INTO standings (run_id, rank, bot, answer_id, baseline, score, played, wins, errors, faults, first_fault)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, runID, st.Rank, st.Bot, nullable(st.AnswerID), st.Baseline, st.Score, st.Played, st.Wins, st.Errors, string(faults), st.FirstFault); err != nil {
				return fmt.Errorf("standing of %s: %w", st.Bot, err)
			}
		}
		if err := dropCheckpoints(ctx, tx, runID); err != nil {
			return err
		}
		var b any
		if board != nil {
			b = string(board)
		}
		_, err := tx.ExecContext(ctx, `UPDATE runs SET state = 'done', finished = ?, games_played = ?, result = ?, board = COALESCE(?, board) WHERE id = ?`,
			s.now().Unix(), res.Games, string(blob), b, runID)
		return err
	})
	if err != nil {
		return fmt.Errorf("finish run %d: %w", runID, err)
	}
	return nil
}

// FailRun marks a run failed with the reason; the previous good run stays the current one.
// A failed run is never resumed: its checkpoint goes.
func (s *Store) FailRun(ctx context.Context, runID int64, reason string) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE runs SET state = 'failed', error = ?, finished = ? WHERE id = ?`, reason, s.now().Unix(), runID); err != nil {
			return err
		}
		return dropCheckpoint(ctx, tx, runID)
	})
}

// InterruptRun marks a run stopped on request (a signal): not a failure, the next cycle
// plays it again with its seed.
func (s *Store) InterruptRun(ctx context.Context, runID int64) error {
	_, err := s.db.ExecContext(ctx, `UPDATE runs SET state = 'interrupted', error = ?, finished = ? WHERE id = ?`,
		InterruptedReason, s.now().Unix(), runID)
	if err != nil {
		return fmt.Errorf("mark run %d interrupted: %w", runID, err)
	}
	return nil
}

// LastRun returns the newest finished ('done') run of a challenge, or nil.
func (s *Store) LastRun(ctx context.Context, challenge string) (*Run, error) {
	return s.run(ctx, `WHERE challenge = ? AND state = 'done' ORDER BY id DESC LIMIT 1`, challenge)
}

// LastAttempt returns the newest run of a challenge whatever its state, or nil.
func (s *Store) LastAttempt(ctx context.Context, challenge string) (*Run, error) {
	return s.run(ctx, `WHERE challenge = ? ORDER BY id DESC LIMIT 1`, challenge)
}

// GetRun returns a run by id.
func (s *Store) GetRun(ctx context.Context, id int64) (*Run, error) {
	return s.run(ctx, `WHERE id = ?`, id)
}

func (s *Store) run(ctx context.Context, where string, args ...any) (*Run, error) {
	var r Run
	var seed int64
	var finished sql.NullInt64
	var result sql.NullString
	err := s.db.QueryRowContext(ctx, `SELECT id, challenge, seed, concurrency, botset, started, finished, games_planned, games_played, state, error, result, board IS NOT NULL FROM runs `+where, args...).
		Scan(&r.ID, &r.Challenge, &seed, &r.Concurrency, &r.BotSet, &r.Started, &finished, &r.GamesPlanned, &r.GamesPlayed, &r.State, &r.Error, &result, &r.HasBoard)
	if err == sql.ErrNoRows {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read run: %w", err)
	}
	r.Seed, r.Finished = uint64(seed), finished.Int64
	if result.Valid {
		r.Result = &engine.Result{}
		if err := json.Unmarshal([]byte(result.String), r.Result); err != nil {
			return nil, fmt.Errorf("run %d: stored result unreadable: %w", r.ID, err)
		}
	}
	return &r, nil
}

// Standings returns a run's standings by rank.
func (s *Store) Standings(ctx context.Context, runID int64) ([]Standing, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT rank, bot, COALESCE(answer_id, 0), baseline, score, played, wins, errors, faults, first_fault FROM standings WHERE run_id = ? ORDER BY rank`, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Standing
	for rows.Next() {
		var st Standing
		var faults string
		if err := rows.Scan(&st.Rank, &st.Bot, &st.AnswerID, &st.Baseline, &st.Score, &st.Played, &st.Wins, &st.Errors, &faults, &st.FirstFault); err != nil {
			return nil, err
		}
		_ = json.Unmarshal([]byte(faults), &st.Faults)
		out = append(out, st)
	}
	return out, rows.Err()
}

func nullable(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

// RecordRunBots stores the bots of a run in tournament order, as they were played (their
// directories and commands included), so that the run can be replayed.
func (s *Store) RecordRunBots(ctx context.Context, runID int64, bots []engine.Bot) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		for i, b := range bots {
			run := ""
			if len(b.Run) > 0 {
				j, _ := json.Marshal(b.Run)
				run = string(j)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO run_bots (run_id, idx, name, answer_id, author, baseline, dir, seed, run, heading) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				runID, i, b.Name, nullable(b.AnswerID), b.Author, b.Baseline, b.Dir, int64(b.Seed), run, b.Heading); err != nil {
				return fmt.Errorf("record bots of run %d: %w", runID, err)
			}
		}
		return nil
	})
}

// RunBots returns the bots of a run in tournament order.
func (s *Store) RunBots(ctx context.Context, runID int64) ([]engine.Bot, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT name, COALESCE(answer_id, 0), author, baseline, dir, seed, run, heading FROM run_bots WHERE run_id = ? ORDER BY idx`, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []engine.Bot
	for rows.Next() {
		var b engine.Bot
		var seed int64
		var run string
		if err := rows.Scan(&b.Name, &b.AnswerID, &b.Author, &b.Baseline, &b.Dir, &seed, &run, &b.Heading); err != nil {
			return nil, err
		}
		b.Seed = uint64(seed)
		if run != "" {
			if err := json.Unmarshal([]byte(run), &b.Run); err != nil {
				return nil, fmt.Errorf("run %d, bot %s: stored command unreadable: %w", runID, b.Name, err)
			}
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// SetRunBoard stores the board published for a finished run.
func (s *Store) SetRunBoard(ctx context.Context, runID int64, board []byte) error {
	_, err := s.db.ExecContext(ctx, `UPDATE runs SET board = ? WHERE id = ?`, string(board), runID)
	if err != nil {
		return fmt.Errorf("store board of run %d: %w", runID, err)
	}
	return nil
}

// RunBoard returns the board stored for a run, or nil.
func (s *Store) RunBoard(ctx context.Context, runID int64) ([]byte, error) {
	var b sql.NullString
	err := s.db.QueryRowContext(ctx, `SELECT board FROM runs WHERE id = ?`, runID).Scan(&b)
	if err == sql.ErrNoRows || !b.Valid {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read board of run %d: %w", runID, err)
	}
	return []byte(b.String), nil
}
