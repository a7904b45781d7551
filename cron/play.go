package cron

import (
	"context"
	"fmt"
	"time"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/engine/all"
	"github.com/kothd/kothd/publisher"
	"github.com/kothd/kothd/runner/protocol"
	protoall "github.com/kothd/kothd/runner/protocol/all"
	"github.com/kothd/kothd/runner/sandbox"
)

// PlayEnv is one run of a challenge: what its protocol needs (protocol.Env) and what only
// the cycle owns (the run's settings, progress, checkpoints).
type PlayEnv struct {
	protocol.Env
	// Run is the run's settings, resolved once (resolve) before it plays; zero outside a
	// run (validation, class listing).
	Run      RunSpec
	Progress engine.Progress
	// Checkpoints, when set, commits the run batch by batch and resumes it (checkpoint.go).
	Checkpoints *Checkpoints
	// Loaded, when set, is told that the run's bots were loaded ahead of its first game
	// (loadBots): how many, how long it took, and the bots' CPU for it.
	Loaded func(bots int, took, botsCPU time.Duration)
}

// Played is a run's outcome: the table, and the fault accounting of each bot (same order
// as PlayEnv.Bots).
type Played struct {
	Result *engine.Result
	Stats  []*protocol.Stats
	Games  int               // games planned
	Ending *publisher.Ending // why a run of adaptive length ended; nil for a fixed length
	// Lowered are the restarts with fewer games in flight before this attempt (crowd.go).
	Lowered []publisher.Lowered
}

// Engines lists the games this build plays.
func Engines() []string { return all.Games().Names() }

// games returns the cycle's registry of games (every game of the build by default).
func (c *Cycle) games() *engine.Registry {
	if c.Games == nil {
		c.Games = all.Games()
	}
	return c.Games
}

// newEnv looks up a challenge's game, checks the protocol the config names against it and
// decodes the challenge's options.
func (c *Cycle) newEnv(ch *config.Challenge) (*PlayEnv, protocol.Protocol, error) {
	g, err := c.games().Lookup(ch.Engine)
	if err != nil {
		return nil, nil, err
	}
	if ch.Protocol != "" && ch.Protocol != string(g.Protocol) {
		return nil, nil, fmt.Errorf("challenge %s: the %s engine plays the %s protocol, not %q", ch.Name, g.Name, g.Protocol, ch.Protocol)
	}
	opts, err := g.DecodeOptions(&ch.Options)
	if err != nil {
		return nil, nil, fmt.Errorf("challenge %s: %w", ch.Name, err)
	}
	p, err := protoall.Lookup(g.Protocol)
	if err != nil {
		return nil, nil, fmt.Errorf("challenge %s: %w", ch.Name, err)
	}
	env := &PlayEnv{Env: protocol.Env{Challenge: ch, Config: c.Config, Game: g, Options: opts, Sandbox: c.Sandbox, Log: c.Log.With("challenge", ch.Name)}}
	return env, p, nil
}

// run is the engine's view of env's run, without a protocol connected.
func (env *PlayEnv) run() engine.Run {
	return engine.Run{
		Bots:        engine.Entrants(env.Bots),
		Seed:        env.Run.Seed(),
		Games:       env.Run.Games(),
		Concurrency: env.Run.Concurrency(),
		Options:     env.Run.Options(),
		Progress:    env.Progress,
	}
}

// connect opens env's bots with the protocol a and sends decisions the engine settles
// itself to their accounting.
func connect(a protocol.Protocol, env *PlayEnv) (engine.Run, []*protocol.Stats, func(), error) {
	r := env.run()
	shares, err := sandbox.NewShares(env.Sandbox, env.Challenge.Limits.TotalMemoryMB)
	if err != nil {
		return r, nil, nil, err
	}
	// A copy: the caller's env may serve again after the run (a replay's, a validation)
	// and must not name cgroups removed with it.
	withShares := *env
	withShares.Shares = shares
	stats, closeFn, err := a.Open(&withShares.Env, &r)
	if err != nil {
		_ = shares.Close()
		return r, nil, nil, err
	}
	r.Fault = func(_ engine.At, bot int, f *engine.Fault, input any) { stats[bot].Record(f, input) }
	r.Referee = protocol.Referees(&withShares.Env) // a game whose rules are the host's program
	return r, stats, func() {
		closeFn()
		if err := shares.Close(); err != nil {
			env.Log.Warn("the run's cgroups stay behind", "err", err)
		}
	}, nil
}

// openScratch connects env's bots to the protocol a in scratch copies of their directories
// (kind names the copies: "run", "shard"); the returned function closes the bots and
// removes the copies.
func openScratch(env *PlayEnv, a protocol.Protocol, kind string) (engine.Run, []*protocol.Stats, func(), error) {
	work, cleanup, err := scratch(env, a, kind, env.Bots)
	if err != nil {
		return engine.Run{}, nil, nil, err
	}
	wenv := *env
	wenv.Bots = work
	r, stats, closeFn, err := connect(a, &wenv)
	if err != nil {
		cleanup()
		return engine.Run{}, nil, nil, err
	}
	return r, stats, func() {
		closeFn()
		cleanup()
	}, nil
}

// metered plays a run (or an attempt at one) of env's under the cycle's Meter, if any, and
// says when its bots are loaded.
func (c *Cycle) metered(env *PlayEnv, play func() (*Played, error)) (*Played, error) {
	var m Metering
	if c.Meter != nil {
		m = c.Meter(env.Challenge.Name)
	}
	env.Loaded = func(bots int, took, botsCPU time.Duration) {
		c.printf("%s: %d bots loaded in %.2fs\n", env.Challenge.Name, bots, took.Seconds())
		if m.Loaded != nil {
			m.Loaded(botsCPU)
		}
	}
	defer func() { env.Loaded = nil }()
	played, err := play()
	if m.Done != nil {
		var stats []*protocol.Stats
		if played != nil {
			stats = played.Stats
		}
		m.Done(stats)
	}
	return played, err
}

// loadBots starts the run's bots before its first game when its protocol can
// (engine.Loader): a run then pays its start-ups before its games, as an original
// controller loads its bots first, and the host sees how long they took.
func loadBots(ctx context.Context, env *PlayEnv, r *engine.Run) {
	l, ok := r.Calls.(engine.Loader)
	if !ok {
		return
	}
	began := time.Now()
	cpu := l.Load(ctx)
	if env.Loaded != nil && ctx.Err() == nil {
		env.Loaded(len(r.Bots), time.Since(began), cpu)
	}
}

// playRun plays env's run in scratch copies of the bots' directories; with watch, it stops
// with a CrowdedError when a bot runs out of memory with several games in flight (crowd.go).
func playRun(ctx context.Context, env *PlayEnv, a protocol.Protocol, watch bool) (*Played, error) {
	r, stats, closeFn, err := openScratch(env, a, "run")
	if err != nil {
		return nil, err
	}
	defer closeFn()
	loadBots(ctx, env, &r)
	ad := env.Run.startAdaptive()
	led, err := runBatches(ctx, env, ad, &r)
	if err != nil {
		return nil, err
	}
	if led == nil && !protocol.InGameOrder(a) {
		// Counted in game order even without checkpoints, so that the faults of games
		// an engine discards are dropped and the first fault is the same whatever the
		// concurrency (ledger.go, protocol.Unordered).
		led = connectLedger(&r, nil)
	}
	var res *engine.Result
	err = watchCrowding(ctx, &r, watch, func(ctx context.Context) (err error) {
		res, err = env.Game.Play(ctx, r)
		return err
	})
	if err != nil {
		return nil, err
	}
	if led != nil {
		final := led.final(res)
		for i := range final {
			final[i].SetBench(stats[i].Bench()) // benching is the protocol's (pyclass/streak.go, argv, dirfiles)
		}
		stats = final
	}
	games := r.Games
	if env.Game.Planned != nil {
		games = env.Game.Planned(r, res)
	}
	p := &Played{Result: res, Stats: stats, Games: games}
	if ad != nil {
		p.Ending = ad.ending(res)
	}
	return p, nil
}

// runBatches sets r.Batches: the one place where what happens at a batch boundary is
// composed. The checkpoint is saved first (when the run has them), then the adaptive length
// decides whether the run ends. It returns the run's ledger when the run is checkpointed
// (its accounting then comes from the ledger), else nil; r.Batches stays nil when nothing
// needs the run in batches.
func runBatches(ctx context.Context, env *PlayEnv, ad *adaptive, r *engine.Run) (*ledger, error) {
	cp := env.Checkpoints
	every := 0
	switch {
	case cp != nil && ad != nil:
		every = min(cp.Every, ad.batch) // each looks at the first boundary past its multiples
	case cp != nil:
		every = cp.Every
	case ad != nil:
		every = ad.batch
	default:
		return nil, nil
	}
	var stop func(done, step int, sofar func() *engine.Result) bool
	if ad != nil {
		stop = func(done, step int, sofar func() *engine.Result) bool { return ad.stop(done, step, sofar) }
	}
	if cp == nil {
		prev := 0
		r.Batches = &engine.Batches{Every: every, Done: func(c engine.Checkpoint, sofar func() *engine.Result) (bool, error) {
			step := c.Done - prev
			prev = c.Done
			return stop(c.Done, step, sofar), nil
		}}
		return nil, nil
	}
	return cp.attach(ctx, r, every, stop)
}

// processLimits turns a challenge's configured limits into the sandbox's.
func processLimits(env *PlayEnv) sandbox.Limits { return protocol.Limits(&env.Env) }

// scratch copies the bots' directories for one use (protocol.Scratch), as protocol a
// shows them.
func scratch(env *PlayEnv, a protocol.Protocol, kind string, bots []engine.Bot) ([]engine.Bot, func(), error) {
	return protocol.Scratch(&env.Env, kind, bots, a.ReadOnlyDirs())
}
