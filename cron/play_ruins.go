package cron

import (
	"context"
	"fmt"
	"io"
	"sort"

	"kothd/engine"
	"kothd/engine/ruins"
	"kothd/runner"
	"kothd/store"
)

// ruinsAdapter plugs Adventurers in the Ruins (codegolf 183101) into the cycle: pyclass
// bots (every Adventurer subclass of an answer competes), a pool phase when there are more
// than ten, then finals until a 50-point lead or 500 games.
type ruinsAdapter struct{}

func init() { register("ruins", ruinsAdapter{}) }

// ruinsOptions is the challenge's `options:` block in config.yaml.
type ruinsOptions struct {
	// SeedString seeds the tournament like the original's -s (e.g. K48XMESC). Empty: an
	// 8-character string derived from the run seed, shown in the leaderboard's summary.
	SeedString string `yaml:"seed_string"`
	GameSize   int    `yaml:"game_size"`  // default 10
	PoolGames  int    `yaml:"pool_games"` // pool games per bot, default 20
	Lead       int    `yaml:"lead"`       // default 50
	MaxFinals  int    `yaml:"max_finals"` // default 500; a requested game count overrides it
}

func (ruinsAdapter) options(env *PlayEnv) (ruinsOptions, error) {
	var o ruinsOptions
	err := decodeOptions(env, &o)
	return o, err
}

func (ruinsAdapter) Prepare(ctx context.Context, env *PlayEnv, sub Submission) ([]Entry, error) {
	return pyPrepare(ctx, env, "ruins", sub)
}

// Builtins: none. The Drunkards that fill a table of fewer than ten live in the engine and
// never score.
func (ruinsAdapter) Builtins(ctx context.Context, env *PlayEnv) ([]Entry, error) {
	return nil, nil
}

// Validate plays one game between two copies of the bot and eight Drunkards.
func (ruinsAdapter) Validate(ctx context.Context, env *PlayEnv, e Entry) error {
	return pyValidate(ctx, env, "ruins", e, func(ctx context.Context, ex engine.Exchanger, bots []engine.Entrant) error {
		_, err := ruins.Play(ctx, ex, bots, ruins.Options{SeedString: "VALIDATE", MaxFinals: 1, Concurrency: 1})
		return err
	})
}

func (a ruinsAdapter) Play(ctx context.Context, env *PlayEnv) (*Played, error) {
	t, err := a.table(env)
	if err != nil {
		return nil, err
	}
	defer t.pool.Close()
	t.opts.Progress = env.Progress
	res, err := ruins.Play(ctx, t.pool, t.ents, t.opts)
	if err != nil {
		return nil, err
	}
	if t.derived {
		res.Summary[0] += fmt.Sprintf(" (derived from the run seed %d)", env.Seed)
	}
	stats := make([]*runner.Stats, len(env.Bots))
	for k, i := range t.order {
		stats[i] = t.pool.Stats(k)
	}
	return &Played{Result: res, Stats: stats, Games: res.Games + res.Voided}, nil
}

// ruinsTable is what Play and Replay share: the competitors in the original's loading
// order, their processes and the engine's options.
type ruinsTable struct {
	order   []int // order[k] = index in env.Bots of competitor k
	ents    []engine.Entrant
	pool    *runner.PyPool // the caller closes it
	opts    ruins.Options
	derived bool // the seed string was derived from the run seed
}

func (a ruinsAdapter) table(env *PlayEnv) (*ruinsTable, error) {
	o, err := a.options(env)
	if err != nil {
		return nil, err
	}
	t := &ruinsTable{order: ruinsOrder(env.Bots), derived: o.SeedString == ""}
	seed := o.SeedString
	if t.derived {
		seed = ruins.SeedString(env.Seed)
	}
	bots := make([]runner.PyBot, len(t.order))
	t.ents = make([]engine.Entrant, len(t.order))
	for k, i := range t.order {
		b := env.Bots[i]
		bots[k] = runner.PyBot{Name: b.Name, Dir: b.Dir, Seed: b.Seed}
		t.ents[k] = engine.Entrant{Name: b.Name, Baseline: b.Baseline}
	}
	t.pool = runner.NewPyPool(env.Sandbox, pyConfig(env, "ruins"), bots)
	t.opts = ruins.Options{
		SeedString:  seed,
		GameSize:    o.GameSize,
		PoolGames:   o.PoolGames,
		Lead:        o.Lead,
		MaxFinals:   firstPositive(env.Games, o.MaxFinals, env.Challenge.Games),
		Concurrency: firstPositive(env.Challenge.Concurrency, 32),
	}
	return t, nil
}

// ruinsOrder returns the indices of bots in the original's loading order: by module name,
// and within one answer in definition order (the order Prepare returned them).
func ruinsOrder(bots []Entry) []int {
	names := make([]string, len(bots))
	for i, b := range bots {
		// The module name the original scraper gave the answer (from its author and title);
		// the original loaded modules in sorted name order, and that order breaks ties.
		title := b.Title
		if title == "" {
			title = b.Name
		}
		names[i] = ruins.ModuleName(b.Author, title)
	}
	order := make([]int, len(bots))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool { return names[order[x]] < names[order[y]] })
	return order
}

// Replay plays game GAME of a past run again, alone, with the seating, every turn's log
// lines and the final ranking. Games are numbered in play order, as in the run's fault
// records: with a pool phase (more bots than game_size), pool games are 0 to P−1 and the
// finals follow from P; without one, the finals are 0, 1, …. Replaying a final after a
// pool phase plays the P pool games again first, silently, since they decide the
// finalists. The bots play in copies of their directories, with fresh processes.
func (a ruinsAdapter) Replay(ctx context.Context, env *PlayEnv, game int, w io.Writer) error {
	env, cleanup, err := replayEnv(env)
	if err != nil {
		return err
	}
	defer cleanup()
	t, err := a.table(env) // the run's competitor order, as Play builds it
	if err != nil {
		return err
	}
	defer t.pool.Close()
	fmt.Fprintln(w, "Played again with fresh bot processes: the seating, the characters' names, the rooms and the seeds of the bots' own random.Random are the run's; a bot that keeps class-level state across games, or draws entropy of its own, may decide differently than in the run.")
	return ruins.Replay(ctx, t.pool, t.ents, t.opts, game, func(line string) { fmt.Fprintln(w, line) })
}

// replayGames is the number of games the run counted (scored or voided): the pool games
// and the finals up to the one that met the stopping rule. A run that did not finish has
// none to replay.
func (ruinsAdapter) replayGames(env *PlayEnv, run *store.Run) int {
	if run == nil || run.Result == nil {
		return 0
	}
	return run.Result.Games + run.Result.Voided
}
