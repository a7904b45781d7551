package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kothd/kothd/scraper"
)

// Two challenges on one question: each keeps its own answers, revisions, bot statuses and
// deletions.
func TestTwoChallengesOnOneQuestion(t *testing.T) {
	s, _ := open(t)
	ctx := context.Background()
	if _, err := s.RecordAnswers(ctx, "a", 100, []scraper.Submission{sub(1, "x"), sub(2, "y")}); err != nil {
		t.Fatal(err)
	}
	ch, err := s.RecordAnswers(ctx, "b", 100, []scraper.Submission{sub(1, "x")})
	if err != nil {
		t.Fatal(err)
	}
	if k := kinds(ch); k[1] != "new" || len(k) != 1 {
		t.Errorf("challenge b's first fetch: %v, want answer 1 new", k)
	}
	if err := s.SetBotStatus(ctx, "a", 1, "X", "ok", ""); err != nil {
		t.Fatal(err)
	}
	if err := s.SetBotStatus(ctx, "b", 1, "X", "failed validation", "no"); err != nil {
		t.Fatal(err)
	}
	for c, want := range map[string]string{"a": "ok", "b": "failed validation"} {
		if got, _ := s.BotStatus(ctx, c, 1, "X"); got != want {
			t.Errorf("status in %s = %q, want %q", c, got, want)
		}
	}
	// Answer 2 is in a's fetch only: a fetch of b does not delete it from a.
	ch, err = s.RecordAnswers(ctx, "a", 100, []scraper.Submission{sub(1, "x"), sub(2, "y")})
	if err != nil {
		t.Fatal(err)
	}
	if k := kinds(ch); k[1] != "unchanged" || k[2] != "unchanged" {
		t.Errorf("challenge a again: %v", k)
	}
	// An edit seen by b is b's edit; a still has the old revision until it fetches.
	ch, err = s.RecordAnswers(ctx, "b", 100, []scraper.Submission{sub(1, "x2")})
	if err != nil {
		t.Fatal(err)
	}
	if k := kinds(ch); k[1] != "edited" {
		t.Errorf("b: %v", k)
	}
	if got, _ := s.BotStatus(ctx, "a", 1, "X"); got != "ok" {
		t.Errorf("a's status changed by b's edit: %q", got)
	}
}

// A database of schema version 4 (answers keyed by answer id) migrates with its rows,
// revisions and bot statuses intact.
func TestMigrateAnswersKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kothd.db")
	db, err := sql.Open("sqlite3", "file:"+path+"?_foreign_keys=on")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range migrations[:4] {
		if _, err := db.Exec(m); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{
		`PRAGMA user_version = 4`,
		`INSERT INTO challenges (name, question_id) VALUES ('forty', 177765)`,
		`INSERT INTO answers VALUES (7, 'forty', 'al', 1, 'active', NULL, 1, 1)`,
		`INSERT INTO revisions VALUES (1, 7, 'h1', 'T', 'python3', '[]', '', 0, 1)`,
		`INSERT INTO revisions VALUES (2, 7, 'h2', 'T', 'python3', '[]', '', 0, 2)`,
		`UPDATE answers SET revision_id = 2`,
		`INSERT INTO bots (revision_id, name, status, reason, updated) VALUES (2, 'X', 'ok', '', 1)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(q, err)
		}
	}
	db.Close()
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	if got, err := s.BotStatus(ctx, "forty", 7, "X"); got != "ok" || err != nil {
		t.Errorf("status after migration %q %v", got, err)
	}
	var n int
	s.db.QueryRow(`SELECT COUNT(*) FROM revisions WHERE challenge = 'forty' AND answer_id = 7`).Scan(&n)
	if n != 2 {
		t.Errorf("%d revisions kept, want 2", n)
	}
	var fk string
	s.db.QueryRow(`SELECT sql FROM sqlite_master WHERE name = 'revisions'`).Scan(&fk)
	if want := "REFERENCES answers(challenge, answer_id)"; !strings.Contains(fk, want) {
		t.Errorf("revisions: %s", fk)
	}
	var on int
	s.db.QueryRow(`PRAGMA foreign_keys`).Scan(&on)
	if on != 1 {
		t.Error("foreign keys left off after migrating")
	}
	// The migrated store goes on: the answer unchanged, then edited.
	ch, err := s.RecordAnswers(ctx, "forty", 177765, []scraper.Submission{sub(7, "new code")})
	if err != nil || fmt.Sprint(kinds(ch)) != "map[7:edited]" {
		t.Errorf("after migration: %v %v", kinds(ch), err)
	}
}
