package cron

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/kothd/kothd/publisher"
)

// The checkpoints of a run read its description: their interval is of the run's resolved
// games (a challenge without games: the game's default), and a resumed run says where it
// resumes in the same number of games the store's run row holds.
func TestCheckpointsReadTheRunDescription(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := testCycle(t, t.TempDir())
	var out bytes.Buffer
	c.Out = &out
	ch, err := c.Config.Challenge("forty")
	if err != nil {
		t.Fatal(err)
	}
	ch.Games = 0
	env, _, err := c.newEnv(ch)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Store.RecordAnswers(ctx, "forty", ch.QuestionID, nil); err != nil {
		t.Fatal(err)
	}
	env.Run = env.resolve(0).withSeed(9)
	games := env.Run.Games()
	if games != env.Game.Games || games <= 0 {
		t.Fatalf("resolved %d games, want the game's default %d", games, env.Game.Games)
	}
	prev, err := c.Store.StartRun(ctx, "forty", 9, env.Run.Concurrency(), "set", games)
	if err != nil {
		t.Fatal(err)
	}
	// prev is left running, as a kill -9 leaves it.
	stats, _ := json.Marshal(checkpointStats{Kothd: publisher.Version()})
	if err := c.Store.SaveCheckpoint(ctx, prev, 2000, []byte("state"), stats); err != nil {
		t.Fatal(err)
	}
	run, err := c.Store.StartRun(ctx, "forty", 9, env.Run.Concurrency(), "set", games)
	if err != nil {
		t.Fatal(err)
	}
	prevRun, err := c.Store.GetRun(ctx, prev)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := c.checkpoints(ctx, env, run, prevRun, true)
	if err != nil {
		t.Fatal(err)
	}
	if cp.Every != checkpointEvery(games) || cp.Resume == nil || cp.Resume.Done != 2000 {
		t.Errorf("checkpoints every %d games from %+v; want every %d from game 2000", cp.Every, cp.Resume, checkpointEvery(games))
	}
	stored, err := c.Store.GetRun(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("at game 2000 of %d", stored.GamesPlanned); !strings.Contains(out.String(), want) {
		t.Errorf("resume message %q, want %q", out.String(), want)
	}
}
