package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/store"
)

// status says what became of the question's table: not looked at yet, or the last edit and
// the last look with what the host must do.
func TestStatusShowsTheQuestionTable(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "kothd.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	at := func(unix int64) string { return time.Unix(unix, 0).UTC().Format("2006-01-02 15:04") }
	ch := &config.Challenge{Name: "forty", QuestionBoard: &config.QuestionBoard{Enabled: true, Top: 5}}
	var w bytes.Buffer
	if err := printQuestionBoard(ctx, &w, st, ch, at); err != nil {
		t.Fatal(err)
	}
	if got := w.String(); got != "  question:     table enabled (top 5, at most every 24h0m0s), not looked at yet\n" {
		t.Errorf("before any look: %q", got)
	}
	t0 := time.Date(2026, 11, 26, 4, 0, 0, 0, time.UTC)
	if err := st.RecordQuestionEdit(ctx, "forty", t0, 7, []byte(`{}`), "wrote"); err != nil {
		t.Fatal(err)
	}
	if err := st.RecordQuestionCheck(ctx, "forty", t0.Add(24*time.Hour), "failed", "stack exchange API questions/{id}/edit: error 402 invalid_access_token: x: SE_ACCESS_TOKEN is missing, expired, revoked or compromised: obtain a new token", 8); err != nil {
		t.Fatal(err)
	}
	w.Reset()
	if err := printQuestionBoard(ctx, &w, st, ch, at); err != nil {
		t.Fatal(err)
	}
	if got := w.String(); !strings.Contains(got, "last edit 2026-11-26 04:00, run 7; last look 2026-11-27 04:00: failed: ") || !strings.Contains(got, "obtain a new token") {
		t.Errorf("after a failed look: %q", got)
	}
	w.Reset()
	if err := printQuestionBoard(ctx, &w, st, &config.Challenge{Name: "other"}, at); err != nil || w.Len() != 0 {
		t.Errorf("a challenge without a table: %q %v", w.String(), err)
	}
}
