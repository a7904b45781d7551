package store

import (
	"context"
	"strings"
	"testing"

	"github.com/kothd/kothd/engine"
)

// A run's checkpoint is replaced batch by batch, moves to the run that resumes it, and
// goes when a run finishes (with the stale ones of earlier runs) or fails.
func TestCheckpoints(t *testing.T) {
	ctx := context.Background()
	s, _ := open(t)
	if _, err := s.db.Exec(`INSERT INTO challenges (name, question_id) VALUES ('forty', 1), ('ruins', 2)`); err != nil {
		t.Fatal(err)
	}
	r1, _ := s.StartRun(ctx, "forty", 7, 1, "set", 3000)
	if cp, err := s.LoadCheckpoint(ctx, r1); err != nil || cp != nil {
		t.Fatalf("a new run has a checkpoint: %+v %v", cp, err)
	}
	for _, done := range []int{1000, 2000} {
		if err := s.SaveCheckpoint(ctx, r1, done, []byte{byte(done / 1000)}, []byte(`[{}]`)); err != nil {
			t.Fatal(err)
		}
	}
	cp, err := s.LoadCheckpoint(ctx, r1)
	if err != nil || cp == nil || cp.Done != 2000 || string(cp.State) != "\x02" || string(cp.Stats) != `[{}]` {
		t.Fatalf("checkpoint: %+v %v", cp, err)
	}
	if r, _ := s.GetRun(ctx, r1); r.GamesPlayed != 2000 {
		t.Errorf("games played %d after the checkpoint at 2000", r.GamesPlayed)
	}

	// Resumed by run 2; killed before its first batch, run 3 resumes from the same point.
	r2, _ := s.StartRun(ctx, "forty", 7, 1, "set", 3000)
	if cp, err := s.MoveCheckpoint(ctx, r1, r2); err != nil || cp == nil || cp.RunID != r2 || cp.Done != 2000 {
		t.Fatalf("moved: %+v %v", cp, err)
	}
	if cp, _ := s.LoadCheckpoint(ctx, r1); cp != nil {
		t.Error("the checkpoint stayed with the interrupted run too")
	}
	r3, _ := s.StartRun(ctx, "forty", 7, 1, "set", 3000)
	if cp, _ := s.MoveCheckpoint(ctx, r2, r3); cp == nil || cp.Done != 2000 {
		t.Fatalf("second move: %+v", cp)
	}
	if cp, err := s.MoveCheckpoint(ctx, r1, r3); err != nil || cp != nil {
		t.Errorf("a run without a checkpoint moved one: %+v %v", cp, err)
	}

	// A stale checkpoint of an older attempt, and another challenge's, when run 4 finishes.
	s.SaveCheckpoint(ctx, r3, 2500, []byte("x"), []byte("[]"))
	other, _ := s.StartRun(ctx, "ruins", 1, 1, "s", 10)
	s.SaveCheckpoint(ctx, other, 5, []byte("y"), []byte("[]"))
	r4, _ := s.StartRun(ctx, "forty", 8, 1, "other set", 3000)
	s.SaveCheckpoint(ctx, r4, 1000, []byte("z"), []byte("[]"))
	if err := s.FinishRun(ctx, r4, &engine.Result{Games: 3000}, nil); err != nil {
		t.Fatal(err)
	}
	for _, id := range []int64{r3, r4} {
		if cp, _ := s.LoadCheckpoint(ctx, id); cp != nil {
			t.Errorf("run %d keeps a checkpoint after run %d finished", id, r4)
		}
	}
	if cp, _ := s.LoadCheckpoint(ctx, other); cp == nil {
		t.Error("another challenge's checkpoint went too")
	}
	if err := s.FailRun(ctx, other, "broke"); err != nil {
		t.Fatal(err)
	}
	if cp, _ := s.LoadCheckpoint(ctx, other); cp != nil {
		t.Error("a failed run keeps its checkpoint")
	}
}

// BenchmarkSaveCheckpoint is the cost of one batch's commit for a forty run of 48 bots:
// a tally of about 5 KB and 48 bots' accounting.
func BenchmarkSaveCheckpoint(b *testing.B) {
	ctx := context.Background()
	path := b.TempDir() + "/kothd.db"
	s, err := Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	s.db.Exec(`INSERT INTO challenges (name, question_id) VALUES ('forty', 1)`)
	run, _ := s.StartRun(ctx, "forty", 1, 1, "set", 1_000_000)
	state := make([]byte, 5000)
	stats := []byte(strings.Repeat(`{"Counts":{"ok":2417731,"timeout":3}},`, 48))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := s.SaveCheckpoint(ctx, run, i*1000, state, stats); err != nil {
			b.Fatal(err)
		}
	}
}

// A run played again with fewer games in flight records them, and loses its checkpoint
// and its count of games played; a run no longer running cannot be restarted.
func TestRestartRun(t *testing.T) {
	ctx := context.Background()
	s, _ := open(t)
	if _, err := s.db.Exec(`INSERT INTO challenges (name, question_id) VALUES ('forty', 1)`); err != nil {
		t.Fatal(err)
	}
	id, _ := s.StartRun(ctx, "forty", 7, 16384, "set", 30000)
	if err := s.SaveCheckpoint(ctx, id, 1000, []byte{1}, []byte(`[{}]`)); err != nil {
		t.Fatal(err)
	}
	if err := s.RestartRun(ctx, id, 1024); err != nil {
		t.Fatal(err)
	}
	r, _ := s.GetRun(ctx, id)
	if r.Concurrency != 1024 || r.GamesPlayed != 0 || r.State != "running" {
		t.Errorf("after the restart: %+v", r)
	}
	if cp, err := s.LoadCheckpoint(ctx, id); err != nil || cp != nil {
		t.Errorf("the checkpoint of the first attempt stayed: %+v %v", cp, err)
	}
	if err := s.FinishRun(ctx, id, &engine.Result{}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.RestartRun(ctx, id, 64); err == nil {
		t.Error("a finished run was restarted")
	}
}
