package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// Backup writes a consistent copy of the database to path through SQLite's online backup
// API: it may run while the daemon plays and writes (unlike copying the file, which can
// catch a write half done, and misses what sits in the WAL). The copy is written beside
// path and renamed into place, so path is never half a database.
func (s *Store) Backup(ctx context.Context, path string) error {
	tmp := path + ".tmp"
	os.Remove(tmp)
	dst, err := sql.Open("sqlite3", "file:"+tmp)
	if err != nil {
		return fmt.Errorf("backup to %s: %w", path, err)
	}
	defer dst.Close()
	dconn, err := dst.Conn(ctx)
	if err != nil {
		return fmt.Errorf("backup to %s: %w", path, err)
	}
	defer dconn.Close()
	sconn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	defer sconn.Close()
	err = dconn.Raw(func(d any) error {
		return sconn.Raw(func(src any) error {
			b, err := d.(*sqlite3.SQLiteConn).Backup("main", src.(*sqlite3.SQLiteConn), "main")
			if err != nil {
				return err
			}
			for {
				done, err := b.Step(256) // pages at a time: the daemon's writes interleave
				if err != nil {
					b.Finish()
					return err
				}
				if done {
					return b.Finish()
				}
				if ctx.Err() != nil {
					b.Finish()
					return ctx.Err()
				}
			}
		})
	})
	if err == nil {
		err = dconn.Close()
	}
	if err == nil {
		err = dst.Close()
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("backup to %s: %w", path, err)
	}
	return os.Rename(tmp, path)
}

// backupBeforeMigration keeps the database as it was before a schema migration, beside it
// (kothd.db.before-v<N>-<time>): a migration cannot be undone, and an older kothd cannot
// read the migrated file.
func (s *Store) backupBeforeMigration(ctx context.Context, from, to int) (string, error) {
	path := fmt.Sprintf("%s.before-v%d-%s", s.path, to, time.Now().UTC().Format("20060102T150405Z"))
	if err := s.Backup(ctx, path); err != nil {
		return "", fmt.Errorf("backup before migrating the schema from version %d to %d (nothing was changed): %w", from, to, err)
	}
	return filepath.Base(path), nil
}
