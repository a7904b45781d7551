package store

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/scraper"
)

func open(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kothd.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

func sub(id int64, code string) scraper.Submission {
	files := []scraper.File{{Name: "bot.py", Content: code}}
	return scraper.Submission{AnswerID: id, Author: "a", Title: "T", Language: "python3", Files: files, Hash: scraper.HashFiles(files)}
}

func kinds(cs []Change) map[int64]string {
	out := map[int64]string{}
	for _, c := range cs {
		out[c.AnswerID] = c.Kind
	}
	return out
}

func TestChangeTracking(t *testing.T) {
	ctx := context.Background()
	s, path := open(t)
	c1, err := s.RecordAnswers(ctx, "forty", 177765, []scraper.Submission{sub(1, "x"), sub(2, "y")})
	if err != nil {
		t.Fatal(err)
	}
	if got := kinds(c1); !reflect.DeepEqual(got, map[int64]string{1: "new", 2: "new"}) {
		t.Fatalf("first fetch: %v", got)
	}
	c2, _ := s.RecordAnswers(ctx, "forty", 177765, []scraper.Submission{sub(1, "x"), sub(2, "y2")})
	if got := kinds(c2); !reflect.DeepEqual(got, map[int64]string{1: "unchanged", 2: "edited"}) {
		t.Fatalf("second fetch: %v", got)
	}
	c3, _ := s.RecordAnswers(ctx, "forty", 177765, []scraper.Submission{sub(2, "y2")})
	if got := kinds(c3); !reflect.DeepEqual(got, map[int64]string{1: "deleted", 2: "unchanged"}) {
		t.Fatalf("third fetch: %v", got)
	}
	c4, _ := s.RecordAnswers(ctx, "forty", 177765, []scraper.Submission{sub(1, "x"), sub(2, "y2")})
	if got := kinds(c4); got[1] != "restored" {
		t.Fatalf("fourth fetch: %v", got)
	}
	var answers, revisions int
	s.db.QueryRow("SELECT COUNT(*) FROM answers").Scan(&answers)
	s.db.QueryRow("SELECT COUNT(*) FROM revisions").Scan(&revisions)
	if answers != 2 || revisions != 3 {
		t.Errorf("answers %d revisions %d, want 2 and 3 (history kept, nothing duplicated)", answers, revisions)
	}
	// Reopening runs no migration twice and keeps the data.
	s.Close()
	s2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	st, err := s2.Status(ctx, "forty")
	if err != nil || st.Answers != 2 || st.Deleted != 0 {
		t.Fatalf("status after reopen: %+v %v", st, err)
	}
	var mode string
	s2.db.QueryRow("PRAGMA journal_mode").Scan(&mode)
	if mode != "wal" {
		t.Errorf("journal mode %q, want wal", mode)
	}
}

func TestRuns(t *testing.T) {
	ctx := context.Background()
	s, _ := open(t)
	s.SetClock(func() time.Time { return time.Unix(1000, 0) })
	if _, err := s.RecordAnswers(ctx, "forty", 177765, nil); err != nil {
		t.Fatal(err)
	}
	seed := uint64(1<<63 + 5) // above int64: stored bit for bit
	id, err := s.StartRun(ctx, "forty", seed, 16, "set", 10)
	if err != nil {
		t.Fatal(err)
	}
	res := &engine.Result{Games: 10, Columns: []string{"Win%"}, Rows: []engine.Row{{Bot: "A", Score: 50, Cells: []string{"50.0"}}}}
	st := []Standing{{Rank: 1, Bot: "A", Score: 50, Played: 10, Wins: 5, Faults: map[engine.Outcome]int{engine.OK: 9, engine.Timeout: 1}}}
	if err := s.FinishRun(ctx, id, res, st); err != nil {
		t.Fatal(err)
	}
	// A run left running (killed daemon) is marked interrupted by the next start, with
	// what is known of why, and never shown.
	id2, _ := s.StartRun(ctx, "forty", 1, 16, "set2", 10)
	if _, err := s.StartRun(ctx, "forty", 2, 16, "set3", 10); err != nil {
		t.Fatal(err)
	}
	r2, _ := s.GetRun(ctx, id2)
	if r2.State != "interrupted" || r2.Error != AbandonedReason || !r2.Interrupted() {
		t.Errorf("abandoned run: state %q, error %q", r2.State, r2.Error)
	}
	last, err := s.LastRun(ctx, "forty")
	if err != nil || last == nil || last.ID != id || last.Seed != seed || !reflect.DeepEqual(last.Result, res) {
		t.Fatalf("last run %+v %v", last, err)
	}
	got, _ := s.Standings(ctx, id)
	if !reflect.DeepEqual(got, st) {
		t.Errorf("standings %+v want %+v", got, st)
	}
}

// status and check read the daemon's database without changing it: OpenReadOnly creates
// nothing, refuses writes, and refuses a schema other than its own.
func TestOpenReadOnly(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "kothd.db")
	if _, err := OpenReadOnly(ctx, path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing database: err = %v, want ErrNotExist", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("OpenReadOnly created the database")
	}
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ro.DB().ExecContext(ctx, "PRAGMA user_version = 1"); err == nil {
		t.Error("a read-only store accepted a write")
	}
	ro.Close()
	rw, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	rw.DB().ExecContext(ctx, "PRAGMA user_version = 1")
	rw.Close()
	if _, err := OpenReadOnly(ctx, path); err == nil || !strings.Contains(err.Error(), "schema version 1") {
		t.Errorf("old schema: err = %v, want a refusal naming the version", err)
	}
}
