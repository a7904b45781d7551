package store

import (
	"context"
	"database/sql"
	"fmt"
)

// RunScores is one finished run's headline scores, for a board's history chart.
type RunScores struct {
	RunID    int64
	Finished int64              // Unix seconds
	Scores   map[string]float64 // by bot
	Answers  map[string]int64   // by bot: the answer it came from (0 for built-in bots)
}

// ScoreHistory returns the last limit finished runs of a challenge with every bot's
// score, oldest first. Standings are kept for every run, so this is the whole history.
func (s *Store) ScoreHistory(ctx context.Context, challenge string, limit int) ([]RunScores, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT r.id, COALESCE(r.finished, r.started), st.bot, st.score, COALESCE(st.answer_id, 0)
		FROM (SELECT id, finished, started FROM runs WHERE challenge = ? AND state = 'done' ORDER BY id DESC LIMIT ?) r
		JOIN standings st ON st.run_id = r.id ORDER BY r.id, st.rank`, challenge, limit)
	if err != nil {
		return nil, fmt.Errorf("score history of %s: %w", challenge, err)
	}
	defer rows.Close()
	var out []RunScores
	for rows.Next() {
		var id, at int64
		var bot string
		var score float64
		var answer int64
		if err := rows.Scan(&id, &at, &bot, &score, &answer); err != nil {
			return nil, fmt.Errorf("score history of %s: %w", challenge, err)
		}
		if len(out) == 0 || out[len(out)-1].RunID != id {
			out = append(out, RunScores{RunID: id, Finished: at, Scores: map[string]float64{}, Answers: map[string]int64{}})
		}
		out[len(out)-1].Scores[bot] = score
		out[len(out)-1].Answers[bot] = answer
	}
	return out, rows.Err()
}

// Revision is the revision of an answer a run plays.
type Revision struct {
	ID       int64
	Hash     string // the submission's content hash
	Edited   int64  // the answer's last edit on the site, Unix seconds
	Versions int    // distinct contents of the answer the store has seen, this one included
	Site     int    // the answer's revision number on the site when this content was recorded; 0 if not known
}

// CurrentRevisions returns the current revision of every answer of a challenge, by answer id.
func (s *Store) CurrentRevisions(ctx context.Context, challenge string) (map[int64]Revision, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT a.answer_id, r.id, r.hash, r.edited, r.site_revision,
			(SELECT COUNT(*) FROM revisions v WHERE v.challenge = a.challenge AND v.answer_id = a.answer_id)
		FROM answers a JOIN revisions r ON r.id = a.revision_id
		WHERE a.challenge = ?`, challenge)
	if err != nil {
		return nil, fmt.Errorf("revisions of %s: %w", challenge, err)
	}
	defer rows.Close()
	out := map[int64]Revision{}
	for rows.Next() {
		var id int64
		var r Revision
		if err := rows.Scan(&id, &r.ID, &r.Hash, &r.Edited, &r.Site, &r.Versions); err != nil {
			return nil, fmt.Errorf("revisions of %s: %w", challenge, err)
		}
		out[id] = r
	}
	return out, rows.Err()
}

// SetSiteRevisions records answers' revision numbers on the site (by answer id) on their
// current revisions in a challenge. Call it right after RecordAnswers, for the answers it
// found new, edited or restored: the number is then the one of the content just recorded.
func (s *Store) SetSiteRevisions(ctx context.Context, challenge string, numbers map[int64]int) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		for id, n := range numbers {
			if _, err := tx.ExecContext(ctx, `UPDATE revisions SET site_revision = ?
				WHERE id = (SELECT revision_id FROM answers WHERE challenge = ? AND answer_id = ?)`, n, challenge, id); err != nil {
				return fmt.Errorf("record revision number of answer %d: %w", id, err)
			}
		}
		return nil
	})
}
