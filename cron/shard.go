package cron

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"

	protoall "github.com/kothd/kothd/runner/protocol/all"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/publisher"
	"github.com/kothd/kothd/runner/protocol"
	"github.com/kothd/kothd/runner/sandbox"
)

// Shard is a run's games [First, First+Count): the unit a cluster hands to one worker.
// Index numbers the run's shards from 0 (from the run's start, resumed or not).
type Shard struct {
	Index, First, Count int
	// From is what a Chained game's shard starts from (engine.Sharding.Chained): the
	// merged state of the games before First; nil otherwise.
	From []byte `json:",omitempty"`
	// Watch stops the shard with a CrowdedError when a bot runs out of memory with
	// several games in flight (crowd.go): every attempt of a run but the last.
	Watch bool `json:",omitempty"`
}

// ShardResult is what a played shard holds: the engine's state of its games alone and each
// bot's accounting of them (game order), what a checkpoint holds for the whole run.
type ShardResult struct {
	State []byte                `json:"state"`
	Stats []protocol.StatsState `json:"stats"`
	Bench []*protocol.Bench     `json:"bench,omitempty"` // when a bot was benched in the shard
	// Worker names who played it (for status and logs only).
	Worker string `json:"worker"`
}

// Distributor plays the shards of runs (package cluster: NATS JetStream workers). It hands
// each result to fold as it arrives, in any order, maybe twice (fold ignores a shard it
// has), and returns once fold has had every shard, or with the reason the run cannot end.
type Distributor interface {
	// ShardGames is the shard size of a run of games games of g.
	ShardGames(g *engine.Game, games int) int
	Play(ctx context.Context, run *ShardedRun, fold func(shard int, res *ShardResult) error) error
}

// ShardedRun is a run as its Distributor sees it.
type ShardedRun struct {
	Env    *PlayEnv
	RunID  int64
	Shards []Shard // still to play (a resumed run's first shards are folded already)
	// Status, when set, hears what the cluster does with the shards (status, progress).
	Status func(ShardStatus)
	// State is the merged state of the games folded so far (a resumed run's checkpoint
	// before any): what the next shard of a Chained game starts from.
	State func() []byte
}

// ShardStatus counts a run's shards by state, and names the worker holding each in flight.
type ShardStatus struct {
	Queued   int            `json:"queued"`
	InFlight int            `json:"in_flight"`
	Done     int            `json:"done"`
	Holders  map[int]string `json:"holders,omitempty"` // shard index → worker
}

// CutShards cuts games [start, games) into shards of size games (rounded up to whole
// units); the last may be shorter. Boundaries are counted from game 0, so a resumed run
// cuts where the uninterrupted one did.
func CutShards(start, games, size, unit int) []Shard {
	unit = max(unit, 1)
	size = max(unit, (size+unit-1)/unit*unit)
	var out []Shard
	for i, first := 0, 0; first < games; i, first = i+1, first+size {
		if min(first+size, games) <= start {
			continue
		}
		f := max(first, start)
		out = append(out, Shard{Index: i, First: f, Count: min(first+size, games) - f})
	}
	return out
}

// WorkerEnv is the play environment of challenge ch on a worker, which has no cycle: its
// game, decoded options, sandbox and config (data directory, interpreter). The caller
// sets Bots, Seed and Games.
func WorkerEnv(cfg *config.Config, ch *config.Challenge, sb sandbox.Sandbox, log *slog.Logger) (*PlayEnv, error) {
	c := &Cycle{Config: cfg, Sandbox: sb, Log: log}
	env, _, err := c.newEnv(ch)
	return env, err
}

// PlayShard plays one shard of env's run in scratch copies of the bots' directories with
// processes of their own, which end with the shard: a bot's process lives for one shard
// wherever it is played, so the table does not depend on which machine played what.
func PlayShard(ctx context.Context, env *PlayEnv, s Shard) (*ShardResult, error) {
	sh := env.Game.Shards
	if sh == nil {
		return nil, fmt.Errorf("the %s engine cannot be played in shards", env.Game.Name)
	}
	a, err := protoall.Lookup(env.Game.Protocol)
	if err != nil {
		return nil, err
	}
	r, stats, closeFn, err := openScratch(env, a, "shard")
	if err != nil {
		return nil, err
	}
	defer closeFn()
	// Counted by the ledger in game order, as a plain run with checkpoints counts them,
	// whatever the protocol: the shards' accounting adds up to the plain run's.
	led := connectLedger(&r, nil)
	var state []byte
	err = watchCrowding(ctx, &r, s.Watch, func(ctx context.Context) (err error) {
		state, err = sh.Play(ctx, r, s.First, s.Count, s.From)
		return err
	})
	if err != nil {
		return nil, err
	}
	res := &ShardResult{State: state, Stats: make([]protocol.StatsState, len(stats)), Bench: make([]*protocol.Bench, len(stats))}
	copy(res.Stats, led.fold(int(^uint(0)>>1)))
	for i, st := range stats {
		res.Bench[i] = st.Bench()
	}
	return res, nil
}

// shardFold folds a run's shard results in game order: the engine's state, each bot's
// accounting and the first bench, and saves a checkpoint after each shard (the one a
// killed daemon resumes from).
type shardFold struct {
	mu      sync.Mutex
	env     *PlayEnv
	shards  []Shard
	next    int // shards[next] is the next to fold
	held    map[int]*ShardResult
	state   []byte
	stats   []*protocol.Stats
	bench   []*protocol.Bench
	done    int // games folded
	onFold  func(done int)
	saveErr error
}

func (f *shardFold) add(ctx context.Context, index int, res *ShardResult) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	pos := -1
	for i := f.next; i < len(f.shards); i++ {
		if f.shards[i].Index == index {
			pos = i
		}
	}
	if pos < 0 || f.held[pos] != nil {
		return nil // a duplicate (redelivered, played twice) or an old run's: ignored
	}
	if len(res.Stats) != len(f.stats) {
		return fmt.Errorf("shard %d: accounting of %d bots for a run of %d", index, len(res.Stats), len(f.stats))
	}
	f.held[pos] = res
	for f.next < len(f.shards) && f.held[f.next] != nil {
		r := f.held[f.next]
		delete(f.held, f.next)
		state, err := f.env.Game.Shards.Merge(f.state, r.State)
		if err != nil {
			return fmt.Errorf("shard %d: %w", f.shards[f.next].Index, err)
		}
		f.state = state
		for i := range f.stats {
			f.stats[i].Add(r.Stats[i])
			if f.bench[i] == nil && i < len(r.Bench) && r.Bench[i] != nil {
				f.bench[i] = r.Bench[i]
			}
		}
		f.done = f.shards[f.next].First + f.shards[f.next].Count
		f.next++
		if cp := f.env.Checkpoints; cp != nil && f.next < len(f.shards) {
			sts := make([]protocol.StatsState, len(f.stats))
			for i, s := range f.stats {
				sts[i] = s.State()
			}
			b, err := json.Marshal(checkpointStats{Kothd: publisher.Version(), Bots: sts})
			if err != nil {
				return err
			}
			if err := cp.Store.SaveCheckpoint(context.WithoutCancel(ctx), cp.RunID, f.done, f.state, b); err != nil {
				return fmt.Errorf("checkpoint after shard %d: %w", f.shards[f.next-1].Index, err)
			}
		}
		if f.onFold != nil {
			f.onFold(f.done)
		}
	}
	return nil
}

// playSharded plays env's run through the cluster, shard by shard, from its checkpoint
// when it resumes one.
func (c *Cycle) playSharded(ctx context.Context, env *PlayEnv, runID int64, live *LiveRun, watch bool) (*Played, error) {
	r := env.run()
	unit := 1
	if u := env.Game.Shards.Unit; u != nil {
		unit = u(r)
	}
	start := 0
	f := &shardFold{env: env, held: map[int]*ShardResult{}, stats: make([]*protocol.Stats, len(env.Bots)), bench: make([]*protocol.Bench, len(env.Bots))}
	for i := range f.stats {
		f.stats[i] = protocol.NewStats()
	}
	if cp := env.Checkpoints; cp != nil && cp.Resume != nil {
		saved, err := savedStats(cp.Resume, len(env.Bots))
		if err != nil {
			return nil, err
		}
		for i := range f.stats {
			f.stats[i] = protocol.StatsFrom(saved[i])
		}
		start, f.state = cp.Resume.Done, cp.Resume.State
	}
	f.shards = CutShards(start, r.Games, c.Cluster.ShardGames(env.Game, r.Games), unit)
	for i := range f.shards {
		f.shards[i].Watch = watch
	}
	f.onFold = func(done int) {
		if env.Progress != nil {
			env.Progress(done, r.Games)
		}
	}
	run := &ShardedRun{Env: env, RunID: runID, Shards: f.shards, Status: func(st ShardStatus) {
		live.shards.Store(&st)
		if w, ok := c.watch().(ShardWatcher); ok {
			w.Shards(env.Challenge.Name, st.Queued, st.InFlight, st.Done)
		}
	}, State: func() []byte {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.state
	}}
	if err := c.Cluster.Play(ctx, run, func(i int, res *ShardResult) error { return f.add(ctx, i, res) }); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.next != len(f.shards) {
		return nil, fmt.Errorf("cluster: %d of %d shards folded", f.next, len(f.shards))
	}
	res, err := env.Game.Shards.Table(r, f.state)
	if err != nil {
		return nil, err
	}
	for i, s := range f.stats {
		if f.bench[i] != nil {
			s.SetBench(f.bench[i])
		}
	}
	games := r.Games
	if env.Game.Planned != nil {
		games = env.Game.Planned(r, res) // Bank Heist's tournaments play a few more, as in playRun
	}
	return &Played{Result: res, Stats: f.stats, Games: games}, nil
}

// sharded says whether env's run is played through the cluster: one is configured and the
// game can be cut into shards. A run of adaptive length decides where it ends as it goes,
// batch by batch, and is played here, whole.
func (c *Cycle) sharded(env *PlayEnv) bool {
	return c.Cluster != nil && env.Game.Shards != nil && env.Challenge.Adaptive == nil
}

// ShardWatcher is a Watcher that also counts a cluster's shards (the daemon's metrics).
type ShardWatcher interface {
	Shards(challenge string, queued, inFlight, done int)
}

// RunGames is the length of env's run: the games asked for, else the challenge's, else the
// game's default.
func (env *PlayEnv) RunGames() int { return env.run().Games }

// SetRun sets the run a worker plays a shard of: games games (the run's length, resolved on
// the daemon) with master seed seed.
func (env *PlayEnv) SetRun(games int, seed uint64) { env.Run = env.resolve(games).withSeed(seed) }
