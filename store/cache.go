package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// The content cache remembers work whose outcome depends only on content, so that an
// unchanged answer does not cost the host the same work every cycle: a build that failed
// (an include bomb spends the whole build timeout), the classes an answer's code defines
// (listing them executes the code, slow imports included). Entries are keyed by a hash of
// everything the outcome depends on; a changed answer has a new key and is done again.
// Entries are never stale, only unused: they are small (one per answer revision and kind).

// cacheSchema is the content cache's migration (appended to migrations in store.go).
const cacheSchema = `CREATE TABLE content_cache (
		kind    TEXT NOT NULL,            -- what was computed: build failure, classes
		key     TEXT NOT NULL,            -- hex SHA-256 of everything the outcome depends on
		value   BLOB NOT NULL,            -- the outcome, as the caller encoded it
		created INTEGER NOT NULL,         -- Unix seconds
		PRIMARY KEY (kind, key)
	);`

// Recall returns the value remembered for (kind, key), if any.
func (s *Store) Recall(ctx context.Context, kind, key string) ([]byte, bool, error) {
	var v []byte
	err := s.db.QueryRowContext(ctx, `SELECT value FROM content_cache WHERE kind = ? AND key = ?`, kind, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("recall %s %.12s: %w", kind, key, err)
	}
	return v, true, nil
}

// Remember stores value for (kind, key), replacing what was there.
func (s *Store) Remember(ctx context.Context, kind, key string, value []byte) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO content_cache (kind, key, value, created) VALUES (?, ?, ?, ?)
		ON CONFLICT (kind, key) DO UPDATE SET value = excluded.value, created = excluded.created`,
		kind, key, value, s.now().Unix())
	if err != nil {
		return fmt.Errorf("remember %s %.12s: %w", kind, key, err)
	}
	return nil
}
