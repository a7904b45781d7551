package store

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A database with garbage pages is refused at open, with a message that says so.
func TestOpenRefusesDamagedDatabase(t *testing.T) {
	ctx := context.Background()
	s, path := open(t)
	if _, err := s.StartRun(ctx, "forty", 1, 1, "x", 10); err == nil {
		t.Fatal("a run of an unknown challenge was recorded") // foreign keys are on
	}
	s.Close()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(bytes.Repeat([]byte{0xde, 0xad, 0xbe, 0xef}, 2048), 3*4096); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = Open(ctx, path)
	if err == nil || !strings.Contains(err.Error(), "is damaged") {
		t.Fatalf("open of a damaged database: %v", err)
	}
	// A file that is no database at all is refused the same way.
	junk := filepath.Join(t.TempDir(), "kothd.db")
	os.WriteFile(junk, bytes.Repeat([]byte("not sqlite "), 1000), 0o644)
	if _, err := Open(ctx, junk); err == nil || !strings.Contains(err.Error(), "is damaged") {
		t.Fatalf("open of a non-database: %v", err)
	}
}

// A version-4 database (before the 'interrupted' state) keeps its runs and its foreign
// keys through the rebuild of the runs table, and its stopped runs become 'interrupted'.
func TestMigrationKeepsRuns(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "kothd.db")
	db, err := sql.Open("sqlite3", "file:"+path+"?_foreign_keys=on")
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range migrations[:4] {
		if _, err := db.Exec(m); err != nil {
			t.Fatalf("migration %d: %v", i+1, err)
		}
	}
	for _, q := range []string{
		`PRAGMA user_version = 4`,
		`INSERT INTO challenges (name, question_id) VALUES ('forty', 1)`,
		`INSERT INTO runs (id, challenge, seed, concurrency, botset, started, games_planned, state, error) VALUES (1, 'forty', 7, 1, 'a', 1, 10, 'done', '')`,
		`INSERT INTO runs (id, challenge, seed, concurrency, botset, started, games_planned, state, error) VALUES (2, 'forty', 8, 1, 'a', 2, 10, 'failed', 'interrupted (the daemon stopped during the run)')`,
		`INSERT INTO runs (id, challenge, seed, concurrency, botset, started, games_planned, state, error) VALUES (3, 'forty', 9, 1, 'a', 3, 10, 'failed', 'bot crashed the engine')`,
		`INSERT INTO standings (run_id, rank, bot, baseline, score, played, wins, errors, faults, first_fault) VALUES (1, 1, 'B', 0, 1, 1, 1, 0, '{}', '')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := map[int64]string{1: "done", 2: "interrupted", 3: "failed"}
	for id, state := range want {
		r, err := s.GetRun(ctx, id)
		if err != nil || r == nil || r.State != state {
			t.Errorf("run %d after migration: %+v %v, want state %s", id, r, err, state)
		}
	}
	if st, _ := s.Standings(ctx, 1); len(st) != 1 {
		t.Errorf("standings of run 1 lost: %+v", st)
	}
	if _, err := s.DB().Exec(`INSERT INTO standings (run_id, rank, bot, baseline, score, played, wins, errors, faults, first_fault) VALUES (99, 1, 'B', 0, 1, 1, 1, 0, '{}', '')`); err == nil {
		t.Error("foreign keys are off after the migration")
	}
}

// The lock holds one process per directory and names the holder; released, it is free.
func TestLockDir(t *testing.T) {
	dir := t.TempDir()
	l, err := LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	// flock locks belong to open file descriptions: a second open in this process
	// conflicts just as another process would.
	if _, err := LockDir(dir); err == nil || !strings.Contains(err.Error(), "pid "+itoa(os.Getpid())) {
		t.Fatalf("second lock: %v", err)
	}
	l.Release()
	l2, err := LockDir(dir)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	l2.Release()
}

func itoa(n int) string { return strconv.Itoa(n) }

// LockHolder names the process holding a data directory's lock without taking it, and 0
// once it is released.
func TestLockHolder(t *testing.T) {
	dir := t.TempDir()
	if pid, err := LockHolder(dir); err != nil || pid != 0 {
		t.Fatalf("no lock file: %d %v", pid, err)
	}
	l, err := LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if pid, err := LockHolder(dir); err != nil || pid != os.Getpid() {
		t.Errorf("held: pid %d %v, want %d", pid, err, os.Getpid())
	}
	l.Release()
	if pid, err := LockHolder(dir); err != nil || pid != 0 {
		t.Errorf("released: pid %d %v", pid, err)
	}
	// LockHolder took nothing: the directory can be locked again.
	l2, err := LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	l2.Release()
}
