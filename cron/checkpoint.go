package cron

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/publisher"
	"github.com/kothd/kothd/runner"
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

// checkpointable says whether a run of env is checkpointed: its engine plays in batches,
// and its protocol says which game each decision belongs to (the accounting of a resumed
// run must count exactly the games before the checkpoint; only the pyclass Exchanger's
// calls carry their game).
func checkpointable(env *PlayEnv) bool {
	return env.Game.Batched && env.Game.Protocol == engine.PyClass
}

// checkpointStats is the accounting saved with a checkpoint, stamped with the kothd that
// wrote it: engines are compiled into kothd, and a run resumed by another build would mix
// games played by two versions of the rules (and read a state another build wrote) under
// the new build's name on the board. Another build plays the run again from game 0.
type checkpointStats struct {
	Kothd string              `json:"kothd"`
	Bots  []runner.StatsState `json:"bots"`
}

// checkpointBuild is the kothd build that saved cp ("" when unreadable).
func checkpointBuild(cp *store.Checkpoint) string {
	var cs checkpointStats
	if json.Unmarshal(cp.Stats, &cs) != nil {
		return ""
	}
	return cs.Kothd
}

// ledger is the fault accounting of a checkpointed run in game order. Games finish out of
// order and many are in flight at a checkpoint, so each game's decisions are counted
// apart until the engine has folded every game before it; then they join the run's
// accounting. The run's accounting is thereby that of games 0..k-1 at a checkpoint after
// k games, and whole at the end, whatever the concurrency or where the run was resumed.
type ledger struct {
	engine.Exchanger
	mu      sync.Mutex
	base    []*runner.Stats         // games folded
	pending map[int][]*runner.Stats // per game not yet folded: per bot, nil until called
	stopAt  int                     // the game the run stopped before; -1: it did not stop
}

func newLedger(ex engine.Exchanger, bots int, resume *store.Checkpoint) (*ledger, error) {
	l := &ledger{Exchanger: ex, pending: map[int][]*runner.Stats{}, stopAt: -1, base: make([]*runner.Stats, bots)}
	var saved []runner.StatsState
	if resume != nil {
		var cs checkpointStats
		err := json.Unmarshal(resume.Stats, &cs)
		if saved = cs.Bots; err != nil || len(saved) != bots {
			return nil, fmt.Errorf("checkpoint of run %d: accounting of %d bots unreadable for %d bots (%v)", resume.RunID, len(saved), bots, err)
		}
	}
	for i := range l.base {
		if saved != nil {
			l.base[i] = runner.StatsFrom(saved[i])
		} else {
			l.base[i] = runner.NewStats()
		}
	}
	return l, nil
}

// Exchange passes the batch on and counts its replies.
func (l *ledger) Exchange(ctx context.Context, calls []engine.Call) []engine.Reply {
	return l.Send(ctx, calls)()
}

// Send passes the batch on, pipelined if the runner is (engine.Pipeliner), and counts its
// replies when they are received.
func (l *ledger) Send(ctx context.Context, calls []engine.Call) func() []engine.Reply {
	receive := engine.Send(ctx, l.Exchanger, calls)
	return func() []engine.Reply {
		replies := receive()
		l.count(calls, replies)
		return replies
	}
}

// count counts each reply under its game and bot, as the runner counts it.
func (l *ledger) count(calls []engine.Call, replies []engine.Reply) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, c := range calls {
		if i >= len(replies) || c.Bot < 0 || c.Bot >= len(l.base) {
			continue
		}
		g := l.pending[c.Game]
		if g == nil {
			g = make([]*runner.Stats, len(l.base))
			l.pending[c.Game] = g
		}
		if g[c.Bot] == nil {
			g[c.Bot] = runner.NewStats()
		}
		if f := replies[i].Fault; f != nil {
			g[c.Bot].Record(f, c)
		} else {
			g[c.Bot].Record(nil, nil) // an OK needs no input: boxing the call would allocate per decision
		}
	}
}

// engineFault records a decision the engine settled itself. It names no game, so it is
// counted at once: a Batched engine that settles decisions itself has them counted in
// the order they happen (none does today).
func (l *ledger) engineFault(bot int, f *engine.Fault, input any) {
	if bot >= 0 && bot < len(l.base) {
		l.base[bot].Record(f, input)
	}
}

// fold adds the games below done to the run's accounting, in game order, and returns it
// as data.
func (l *ledger) fold(done int) []runner.StatsState {
	l.mu.Lock()
	defer l.mu.Unlock()
	var games []int
	for g := range l.pending {
		if g < done {
			games = append(games, g)
		}
	}
	slices.Sort(games)
	for _, g := range games {
		for b, st := range l.pending[g] {
			if st != nil {
				l.base[b].Add(st.State())
			}
		}
		delete(l.pending, g)
	}
	out := make([]runner.StatsState, len(l.base))
	for i, s := range l.base {
		out[i] = s.State()
	}
	return out
}

// final is the accounting of the whole run: every game, or those before the stop.
func (l *ledger) final() []*runner.Stats {
	end := l.stopAt
	if end < 0 {
		end = int(^uint(0) >> 1)
	}
	l.fold(end)
	return l.base
}

// attach has r report its batches, every games, count its accounting in game order (r's
// protocol connected: r.Calls goes through the returned ledger) and save a checkpoint about
// every cp.Every games. stop, when set, is then asked whether the run ends there.
func (cp *Checkpoints) attach(ctx context.Context, r *engine.Run, every int, stop func(done int, sofar func() *engine.Result) bool) (*ledger, error) {
	l, err := newLedger(r.Calls, len(r.Bots), cp.Resume)
	if err != nil {
		return nil, err
	}
	r.Calls = l
	r.Fault = l.engineFault
	b := &engine.Batches{Every: every}
	if cp.Resume != nil {
		b.Resume = &engine.Checkpoint{Done: cp.Resume.Done, State: cp.Resume.State}
	}
	b.Done = func(c engine.Checkpoint, sofar func() *engine.Result) (bool, error) {
		// The first boundary at or after each multiple of cp.Every (boundaries come every
		// games, which may not divide it).
		if c.Done/cp.Every > (c.Done-every)/cp.Every {
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
		if stop != nil && stop(c.Done, sofar) {
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
