// Package store keeps kothd's state in one SQLite file (mattn/go-sqlite3): answers and every
// revision of them, prepared bots, runs and their standings, change events and publications.
// The schema is versioned; migrations run when the store is opened.
package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"time"

	_ "github.com/mattn/go-sqlite3"
)

// Store is an open database.
type Store struct {
	db   *sql.DB
	now  func() time.Time
	path string
	// Migrated names the backup taken before this open migrated the schema ("" when it
	// did not), for the caller to tell the host.
	Migrated string
}

// Open opens (creating if needed) the database at path, in WAL mode with foreign keys on,
// and brings its schema up to date.
func Open(ctx context.Context, path string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	// _txlock=immediate: a writer takes the lock at BEGIN, so two daemons on one file wait
	// for each other (busy_timeout) instead of failing half-way through a transaction.
	dsn := "file:" + path + "?_journal_mode=WAL&_foreign_keys=on&_busy_timeout=10000&_synchronous=NORMAL&_txlock=immediate"
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1) // SQLite has one writer; one connection keeps transactions simple
	s := &Store{db: db, now: time.Now, path: path}
	if err := s.checkIntegrity(ctx, path); err != nil {
		db.Close()
		return nil, err
	}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("migrate %s: %w", path, err)
	}
	return s, nil
}

// OpenReadOnly opens an existing database for reading only (status, check): it creates
// nothing and migrates nothing, so a command run by another user, or by a newer binary
// than the daemon's, cannot change the database under the daemon. A schema other than
// this kothd's is refused rather than misread. The error wraps fs.ErrNotExist when there
// is no database yet.
func OpenReadOnly(ctx context.Context, path string) (*Store, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro&_foreign_keys=on&_busy_timeout=10000")
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	s := &Store{db: db, now: time.Now}
	if err := s.checkIntegrity(ctx, path); err != nil {
		db.Close()
		return nil, err
	}
	var version int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if version > len(migrations) {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", path, newerSchema(version))
	}
	if version != len(migrations) {
		db.Close()
		return nil, fmt.Errorf("database %s has schema version %d, this kothd reads %d: let the daemon of this version (or kothd once) open it first", path, version, len(migrations))
	}
	return s, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// SetClock replaces the clock (tests).
func (s *Store) SetClock(now func() time.Time) { s.now = now }

// DB exposes the handle for read-only inspection in tests and tools.
func (s *Store) DB() *sql.DB { return s.db }

// migrations are applied in order; the index+1 of the last applied one is user_version.
// Never edit an applied migration: append a new one.
var migrations = []string{
	`CREATE TABLE challenges (
		name          TEXT PRIMARY KEY,
		question_id   INTEGER NOT NULL,
		last_fetch    INTEGER,            -- Unix seconds of the last successful fetch
		answer_count  INTEGER,            -- from the last probe/fetch
		last_activity INTEGER
	);
	CREATE TABLE answers (
		answer_id   INTEGER PRIMARY KEY,  -- answers are keyed by id, never by owner
		challenge   TEXT NOT NULL REFERENCES challenges(name),
		author      TEXT NOT NULL,
		created     INTEGER NOT NULL,
		state       TEXT NOT NULL CHECK (state IN ('active', 'deleted')),
		revision_id INTEGER,              -- current revision
		first_seen  INTEGER NOT NULL,
		last_seen   INTEGER NOT NULL
	);
	CREATE TABLE revisions (
		id        INTEGER PRIMARY KEY,
		answer_id INTEGER NOT NULL REFERENCES answers(answer_id),
		hash      TEXT NOT NULL,          -- content hash of the extracted files (or of the reject reason)
		title     TEXT NOT NULL,
		language  TEXT NOT NULL,
		files     TEXT NOT NULL,          -- JSON [{"Name":…, "Content":…}]
		reject    TEXT NOT NULL,          -- why the answer is not entered; '' when accepted
		edited    INTEGER NOT NULL,       -- SE last edit date
		seen      INTEGER NOT NULL,
		UNIQUE (answer_id, hash)
	);
	CREATE TABLE bots (
		id          INTEGER PRIMARY KEY,
		revision_id INTEGER NOT NULL REFERENCES revisions(id),
		name        TEXT NOT NULL,
		status      TEXT NOT NULL,        -- ok, rejected, failed build, failed validation, excluded
		reason      TEXT NOT NULL,
		updated     INTEGER NOT NULL,
		UNIQUE (revision_id, name)
	);
	CREATE TABLE runs (
		id            INTEGER PRIMARY KEY,
		challenge     TEXT NOT NULL REFERENCES challenges(name),
		seed          INTEGER NOT NULL,   -- uint64 stored bit for bit
		concurrency   INTEGER NOT NULL,
		botset        TEXT NOT NULL,      -- hash of the bots and settings played
		started       INTEGER NOT NULL,
		finished      INTEGER,
		games_planned INTEGER NOT NULL,
		games_played  INTEGER NOT NULL DEFAULT 0,
		state         TEXT NOT NULL CHECK (state IN ('running', 'done', 'failed')),
		error         TEXT NOT NULL DEFAULT '',
		result        TEXT                -- JSON engine.Result, the published table
	);
	CREATE TABLE standings (
		run_id      INTEGER NOT NULL REFERENCES runs(id),
		rank        INTEGER NOT NULL,
		bot         TEXT NOT NULL,
		answer_id   INTEGER,
		baseline    INTEGER NOT NULL,
		score       REAL NOT NULL,
		played      INTEGER NOT NULL,
		wins        INTEGER NOT NULL,
		errors      INTEGER NOT NULL,
		faults      TEXT NOT NULL,        -- JSON {outcome: count}
		first_fault TEXT NOT NULL,        -- JSON of the first failing decision, '' if none
		PRIMARY KEY (run_id, bot)
	);
	CREATE TABLE events (
		id        INTEGER PRIMARY KEY,
		challenge TEXT NOT NULL,
		at        INTEGER NOT NULL,
		kind      TEXT NOT NULL,          -- new, edited, deleted, restored, rank
		answer_id INTEGER,
		detail    TEXT NOT NULL
	);
	CREATE INDEX events_challenge_at ON events (challenge, at);
	CREATE TABLE publications (
		id        INTEGER PRIMARY KEY,
		challenge TEXT NOT NULL,
		run_id    INTEGER REFERENCES runs(id),
		target    TEXT NOT NULL,          -- directory path or github owner/repo/path
		hash      TEXT NOT NULL,          -- sha256 of what was published
		commit_id TEXT NOT NULL,
		at        INTEGER NOT NULL
	);`,
	// The bots a run played, in tournament order, so one of its games can be replayed.
	`CREATE TABLE run_bots (
		run_id    INTEGER NOT NULL REFERENCES runs(id),
		idx       INTEGER NOT NULL,
		name      TEXT NOT NULL,
		answer_id INTEGER,
		author    TEXT NOT NULL,
		baseline  INTEGER NOT NULL,
		dir       TEXT NOT NULL,
		seed      INTEGER NOT NULL,
		PRIMARY KEY (run_id, idx)
	);`,
	// How each bot of a run was started (JSON argv; '' for Python-class and engine bots).
	`ALTER TABLE run_bots ADD COLUMN run TEXT NOT NULL DEFAULT '';`,
	// The published board of a finished run (publisher JSON), to publish again what a
	// failed publication missed, without replaying the games.
	`ALTER TABLE runs ADD COLUMN board TEXT;`,
	// Answers keyed by challenge and answer id, not answer id alone: two challenges on one
	// question each keep their answers (before, the second challenge's fetch updated the
	// first's rows). Revisions follow their answer. Both tables are rebuilt, with
	// foreign keys off (see migrate).
	`CREATE TABLE answers_new (
		challenge   TEXT NOT NULL REFERENCES challenges(name),
		answer_id   INTEGER NOT NULL,
		author      TEXT NOT NULL,
		created     INTEGER NOT NULL,
		state       TEXT NOT NULL CHECK (state IN ('active', 'deleted')),
		revision_id INTEGER,              -- current revision
		first_seen  INTEGER NOT NULL,
		last_seen   INTEGER NOT NULL,
		PRIMARY KEY (challenge, answer_id)
	);
	INSERT INTO answers_new SELECT challenge, answer_id, author, created, state, revision_id, first_seen, last_seen FROM answers;
	CREATE TABLE revisions_new (
		id        INTEGER PRIMARY KEY,
		challenge TEXT NOT NULL,
		answer_id INTEGER NOT NULL,
		hash      TEXT NOT NULL,
		title     TEXT NOT NULL,
		language  TEXT NOT NULL,
		files     TEXT NOT NULL,
		reject    TEXT NOT NULL,
		edited    INTEGER NOT NULL,
		seen      INTEGER NOT NULL,
		UNIQUE (challenge, answer_id, hash),
		FOREIGN KEY (challenge, answer_id) REFERENCES answers(challenge, answer_id)
	);
	INSERT INTO revisions_new SELECT r.id, a.challenge, r.answer_id, r.hash, r.title, r.language, r.files, r.reject, r.edited, r.seen
		FROM revisions r JOIN answers a ON a.answer_id = r.answer_id;
	DROP TABLE revisions;
	DROP TABLE answers;
	ALTER TABLE answers_new RENAME TO answers;
	ALTER TABLE revisions_new RENAME TO revisions;`,
	// A run stopped by a signal, or found unfinished by the next start, is 'interrupted'
	// (its own state, not a failure): the next cycle resumes it. SQLite cannot alter a
	// CHECK constraint, so the table is rebuilt (migrate turns foreign keys off for it).
	`CREATE TABLE runs_new (
		id            INTEGER PRIMARY KEY,
		challenge     TEXT NOT NULL REFERENCES challenges(name),
		seed          INTEGER NOT NULL,
		concurrency   INTEGER NOT NULL,
		botset        TEXT NOT NULL,
		started       INTEGER NOT NULL,
		finished      INTEGER,
		games_planned INTEGER NOT NULL,
		games_played  INTEGER NOT NULL DEFAULT 0,
		state         TEXT NOT NULL CHECK (state IN ('running', 'done', 'failed', 'interrupted')),
		error         TEXT NOT NULL DEFAULT '',
		result        TEXT,
		board         TEXT
	);
	INSERT INTO runs_new SELECT id, challenge, seed, concurrency, botset, started, finished, games_planned, games_played,
		CASE WHEN state = 'failed' AND error = 'interrupted (the daemon stopped during the run)' THEN 'interrupted' ELSE state END,
		error, result, board FROM runs;
	DROP TABLE runs;
	ALTER TABLE runs_new RENAME TO runs;`,
	cacheSchema, // cache.go
	// A run's bots keep their answer's heading as posted: Ruins orders its bots by it, and a
	// replay must seat them as the run did.
	`ALTER TABLE run_bots ADD COLUMN heading TEXT NOT NULL DEFAULT '';`,
	checkpointSchema, // checkpoint.go
	// What kothd last did about each challenge's question table (question.go).
	questionBoardSchema,
	// A revision's number on the site (its answer's edit history) when kothd recorded it;
	// 0 when not known (a snapshot, or the API did not say).
	`ALTER TABLE revisions ADD COLUMN site_revision INTEGER NOT NULL DEFAULT 0;`,
	// Comments on answers not entered (comments.go); what the API said that outlives a
	// process (apistate.go); the question's edit dates as the site counts them, so an edit
	// by someone else is noticed (question.go).
	commentsSchema + apiStateSchema + `
	ALTER TABLE question_boards ADD COLUMN own_edit_date INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE question_boards ADD COLUMN site_edit_date INTEGER NOT NULL DEFAULT 0;`,
}

func (s *Store) migrate(ctx context.Context) error {
	var version int
	if err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return err
	}
	if version > len(migrations) {
		return newerSchema(version)
	}
	if version == len(migrations) {
		return nil
	}
	if version > 0 { // a database in use: keep it as it was (a new one has nothing to keep)
		name, err := s.backupBeforeMigration(ctx, version, len(migrations))
		if err != nil {
			return err
		}
		s.Migrated = name
	}
	// Foreign keys are off while migrating, as SQLite prescribes for rebuilding a table
	// that others reference; each migration is checked before it commits. The pragma is a
	// no-op inside a transaction, hence here, on the store's one connection.
	if _, err := s.db.ExecContext(ctx, "PRAGMA foreign_keys = OFF"); err != nil {
		return err
	}
	defer s.db.ExecContext(context.WithoutCancel(ctx), "PRAGMA foreign_keys = ON")
	for i := version; i < len(migrations); i++ {
		err := s.inTx(ctx, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
				return fmt.Errorf("migration %d: %w", i+1, err)
			}
			rows, err := tx.QueryContext(ctx, "PRAGMA foreign_key_check")
			if err != nil {
				return err
			}
			bad := rows.Next()
			rows.Close()
			if bad {
				return fmt.Errorf("migration %d leaves broken references", i+1)
			}
			_, err = tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", i+1))
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// newerSchema is the error for a database a newer kothd wrote.
func newerSchema(version int) error {
	return fmt.Errorf("database schema version %d is newer than this kothd reads (%d): a newer kothd wrote it; use a newer kothd "+
		"(the one that wrote it, or later), or restore the backup taken before that kothd migrated it (kothd.db.before-v*)", version, len(migrations))
}

// inTx runs f in a transaction, committing if it returns nil.
func (s *Store) inTx(ctx context.Context, f func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := f(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}
