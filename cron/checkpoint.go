package cron

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/publisher"
	"github.com/kothd/kothd/runner/protocol"
	"github.com/kothd/kothd/store"
)

// Checkpoints commits a run of a Batched game to the store batch by batch (engine.Batches),
// so that a run killed in the middle is resumed by the next cycle where its last batch
// ended, and ends with the table and the fault accounting of the run played straight.
type Checkpoints struct {
	Store  *store.Store
	RunID  int64
	Resume *store.Checkpoint // where the run starts; nil: at game 0
	Every  int               // games between checkpoints
}

// checkpointEvery is the batch of a run of games games: a checkpoint every 1,000 games,
// or every 1 % of the run when that is less, so a slow game (seconds per game) loses at
// most a few minutes of play to a kill, and a fast one a second or two.
func checkpointEvery(games int) int {
	return min(1000, max(1, games/100))
}

// checkpointable says whether a run of env is checkpointed: its engine plays in batches.
// Every protocol's decisions name their game (engine.At), so the ledger counts exactly the
// games before a checkpoint whatever the protocol.
func checkpointable(env *PlayEnv) bool {
	return env.Game.Batched
}

// checkpointStats is the accounting saved with a checkpoint, stamped with the kothd that
// wrote it: engines are compiled into kothd, and a run resumed by another build would mix
// games played by two versions of the rules (and read a state another build wrote) under
// the new build's name on the board. Another build plays the run again from game 0.
type checkpointStats struct {
	Kothd string                `json:"kothd"`
	Bots  []protocol.StatsState `json:"bots"`
}

// checkpointBuild is the kothd build that saved cp ("" when unreadable).
func checkpointBuild(cp *store.Checkpoint) string {
	var cs checkpointStats
	if json.Unmarshal(cp.Stats, &cs) != nil {
		return ""
	}
	return cs.Kothd
}

// savedStats is the accounting saved with resume for bots bots (nil: no resume).
func savedStats(resume *store.Checkpoint, bots int) ([]protocol.StatsState, error) {
	if resume == nil {
		return nil, nil
	}
	var cs checkpointStats
	err := json.Unmarshal(resume.Stats, &cs)
	if err != nil || len(cs.Bots) != bots {
		return nil, fmt.Errorf("checkpoint of run %d: accounting of %d bots unreadable for %d bots (%v)", resume.RunID, len(cs.Bots), bots, err)
	}
	return cs.Bots, nil
}

// attach has r report its batches, every games, count its accounting in game order (r's
// protocol connected through the returned ledger) and save a checkpoint about every
// cp.Every games. stop, when set, is then asked whether the run ends there, with the games
// since the previous boundary (every, or a whole tournament's where the engine rounds up).
func (cp *Checkpoints) attach(ctx context.Context, r *engine.Run, every int, stop func(done, step int, sofar func() *engine.Result) bool) (*ledger, error) {
	saved, err := savedStats(cp.Resume, len(r.Bots))
	if err != nil {
		return nil, err
	}
	l := connectLedger(r, saved)
	b := &engine.Batches{Every: every}
	if cp.Resume != nil {
		b.Resume = &engine.Checkpoint{Done: cp.Resume.Done, State: cp.Resume.State}
	}
	prev := 0 // the previous boundary
	if cp.Resume != nil {
		prev = cp.Resume.Done
	}
	b.Done = func(c engine.Checkpoint, sofar func() *engine.Result) (bool, error) {
		l.mu.Lock()
		l.advance(c.Done)
		l.mu.Unlock()
		step := c.Done - prev
		prev = c.Done
		// The first boundary at or after each multiple of cp.Every (boundaries come every
		// games, which may not divide it, or at a tournament's end).
		if c.Done/cp.Every > (c.Done-step)/cp.Every {
			stats, err := json.Marshal(checkpointStats{Kothd: publisher.Version(), Bots: l.fold(c.Done)})
			if err != nil {
				return false, err
			}
			// Not cancelled with ctx: a checkpoint begun is written whole (the engine
			// takes none once ctx is cancelled).
			if err := cp.Store.SaveCheckpoint(context.WithoutCancel(ctx), cp.RunID, c.Done, c.State, stats); err != nil {
				return false, err
			}
		}
		if stop != nil && stop(c.Done, step, sofar) {
			l.mu.Lock()
			l.stopAt = c.Done
			l.mu.Unlock()
			return true, nil
		}
		return false, nil
	}
	r.Batches = b
	return l, nil
}
