package cron_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/cron/crontest"
	"github.com/kothd/kothd/store"
)

// What a host loses between cycles, on the fake game (cmd/kothd's TestHostKeepsTheBoard
// kills real processes; these are the cycle's own answers to lost state).

// A finished run whose board was never stored (the daemon died between the two) is played
// again by the next cycle with its seed, though no answer changed: the same standings.
func TestBoardNeverStoredPlaysAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cy := withFakeGame(t, crontest.NewCycle(t, t.TempDir()))
	ch, _ := cy.Config.Challenge("forty")
	ch.Games = 20
	first, err := cy.Run(ctx, ch, cron.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := cy.Store.Standings(ctx, first.RunID)
	if _, err := cy.Store.DB().Exec(`UPDATE runs SET board = NULL WHERE id = ?`, first.RunID); err != nil {
		t.Fatal(err)
	}
	again, err := cy.Run(ctx, ch, cron.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if again.RunID == 0 || again.RunID == first.RunID || again.Seed != first.Seed {
		t.Fatalf("run %d (seed %d) without a board was not played again with its seed: %+v", first.RunID, first.Seed, again)
	}
	if got, _ := cy.Store.Standings(ctx, again.RunID); len(got) == 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("same seed, different standings:\n%+v\n%+v", want, got)
	}
	if third, _ := cy.Run(ctx, ch, cron.Options{}); third.RunID != 0 {
		t.Errorf("a run with its board was played again: %+v", third)
	}
}

// A database lost (a zero-length file) does not replace the published board of a later run
// with its run 1, unless the host says so (--allow-older-board).
func TestLostDatabaseKeepsTheLaterBoard(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cy := withFakeGame(t, crontest.NewCycle(t, t.TempDir()))
	ch, _ := cy.Config.Challenge("forty")
	ch.Games = 10
	for range 2 {
		if _, err := cy.Run(ctx, ch, cron.Options{Force: true}); err != nil {
			t.Fatal(err)
		}
	}
	board := filepath.Join(cy.Config.OutputDir, "forty.json")
	later, err := os.ReadFile(board)
	if err != nil || boardRun(t, later) != 2 {
		t.Fatalf("board of run 2: %v\n%.300s", err, later)
	}

	dbPath := filepath.Join(cy.Config.DataDir, "kothd.db")
	cy.Store.Close()
	for _, suffix := range []string{"-wal", "-shm"} {
		os.Remove(dbPath + suffix)
	}
	if err := os.Truncate(dbPath, 0); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cy.Store = st

	if _, err := cy.Run(ctx, ch, cron.Options{}); err == nil || !strings.Contains(err.Error(), "--allow-older-board") {
		t.Errorf("a fresh database over the board of run 2: %v", err)
	}
	if now, _ := os.ReadFile(board); !bytes.Equal(now, later) {
		t.Fatal("a fresh database replaced the published board of a later run")
	}
	cy.AllowOlderBoard = true
	if _, err := cy.Run(ctx, ch, cron.Options{}); err != nil {
		t.Fatalf("--allow-older-board: %v", err)
	}
	if now, _ := os.ReadFile(board); boardRun(t, now) != 1 {
		t.Errorf("--allow-older-board did not publish run 1's board:\n%.300s", now)
	}
}

// boardRun is the run of a published board (JSON).
func boardRun(t *testing.T, raw []byte) int64 {
	t.Helper()
	var b struct {
		Run struct {
			ID int64 `json:"id"`
		} `json:"run"`
	}
	if err := json.Unmarshal(raw, &b); err != nil {
		t.Fatalf("published board: %v", err)
	}
	return b.Run.ID
}
