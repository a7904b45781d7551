package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// What the Stack Exchange API told kothd that outlives a process: its `backoff` per method,
// a throttle_violation ban, and the filter made once with /filters/create (filters are
// immutable: one request ever, not one per process). A new `kothd once` seconds after a ban
// must not make the calls the ban forbids.
const apiStateSchema = `CREATE TABLE api_state (
	key   TEXT PRIMARY KEY,              -- "pause:<base>|<method>", "ban:<base>", "filter:<base>|<include>"
	value TEXT NOT NULL DEFAULT '',
	until INTEGER NOT NULL DEFAULT 0     -- pauses: Unix seconds they end; 0 for lasting values
);`

// APIPauses returns the pauses (backoffs, bans) recorded under prefix that end after now,
// by key without the prefix.
func (s *Store) APIPauses(ctx context.Context, prefix string, now time.Time) (map[string]time.Time, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT key, until FROM api_state WHERE key >= ? AND key < ? AND until > ?`, prefix, prefix+"\xff", now.Unix())
	if err != nil {
		return nil, fmt.Errorf("API pauses: %w", err)
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() {
		var k string
		var u int64
		if err := rows.Scan(&k, &u); err != nil {
			return nil, fmt.Errorf("API pauses: %w", err)
		}
		out[k[len(prefix):]] = time.Unix(u, 0)
	}
	return out, rows.Err()
}

// SetAPIPause records that key may not be called before until (a later pause only
// extends it).
func (s *Store) SetAPIPause(ctx context.Context, key string, until time.Time) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO api_state (key, until) VALUES (?, ?)
		ON CONFLICT (key) DO UPDATE SET until = MAX(until, excluded.until)`, key, until.Unix())
	if err != nil {
		return fmt.Errorf("record API pause %s: %w", key, err)
	}
	return nil
}

// APIValue returns a lasting value the API gave (a filter), "" when none.
func (s *Store) APIValue(ctx context.Context, key string) (string, error) {
	var v string
	err := s.db.QueryRowContext(ctx, `SELECT value FROM api_state WHERE key = ?`, key).Scan(&v)
	if err == sql.ErrNoRows {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("API state %s: %w", key, err)
	}
	return v, nil
}

// SetAPIValue records a lasting value the API gave.
func (s *Store) SetAPIValue(ctx context.Context, key, value string) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO api_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value)
	if err != nil {
		return fmt.Errorf("record API state %s: %w", key, err)
	}
	return nil
}
