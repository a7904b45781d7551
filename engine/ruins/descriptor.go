package ruins

import (
	"cmp"
	"context"
	_ "embed"
	"fmt"
	"sort"

	"github.com/kothd/kothd/engine"
)

//go:embed harness.py
var harness []byte

// The yardstick of `kothd bench`: the same bots in one Python process, as the original
// controller played them.
//
//go:embed yardstick.py
var yardstick []byte

// Descriptor is Adventurers in the Ruins as the host plays it: Python classes deriving from
// Adventurer (every subclass of an answer competes), a pool phase when there are more
// than ten, then finals until a 50-point lead or 500 games. The Drunkards that fill a
// table of fewer than ten live in the engine and never score.
var Descriptor = &engine.Game{
	Name:        "ruins",
	Protocol:    engine.PyClass,
	Concurrency: 32,
	Options:     func() any { return new(Options) }, // the challenge's `options:` block
	// The Drunkard competes only where a challenge sets `baselines` (not in the original,
	// where Drunkards only fill tables and never score).
	Baselines: []string{"Drunkard"},
	Harness: &engine.Harness{Module: "ruins", Source: harness,
		Competes: "a bot is a class deriving from Adventurer", Decisions: []string{"act"}},
	Yardstick: yardstick,
	Play:      play,
	Validate:  validate,
	Replay:    replay,
	Planned: func(r engine.Run, recorded *engine.Result) int {
		if recorded == nil {
			return 0 // a run that did not finish has no games to replay
		}
		return recorded.Games + recorded.Voided
	},
}

// table is what play and replay share: the competitors in the original's loading order,
// the calls mapped back to the run's bot indices, and the engine's options.
type table struct {
	ents    []engine.Entrant
	ex      engine.Exchanger
	opts    Options
	derived bool // the seed string was derived from the run seed
}

func newTable(r engine.Run) *table {
	o := engine.OptionsOf[Options](r)
	order := LoadingOrder(r.Bots)
	t := &table{ents: make([]engine.Entrant, len(order)), ex: reorder{r.Calls, order}, derived: o.SeedString == ""}
	for k, i := range order {
		t.ents[k] = r.Bots[i]
	}
	if t.derived {
		o.SeedString = SeedString(r.Seed)
	}
	o.MaxFinals = cmp.Or(r.Games, o.MaxFinals)
	o.Concurrency = r.Concurrency
	t.opts = o
	return t
}

func play(ctx context.Context, r engine.Run) (*engine.Result, error) {
	t := newTable(r)
	t.opts.Progress = r.Progress
	res, err := Play(ctx, t.ex, t.ents, t.opts)
	if err != nil {
		return nil, err
	}
	if t.derived {
		res.Summary[0] += fmt.Sprintf(" (derived from the run seed %d)", r.Seed)
	}
	return res, nil
}

// validate plays three games between the bot and its opponents (the validation's), the
// table filled with Drunkards: a bot that dies on its first turn is still asked three
// decisions, enough to tell one that cannot play (pyclass's minDecisions).
func validate(ctx context.Context, r engine.Run) error {
	_, err := Play(ctx, r.Calls, r.Bots, Options{SeedString: "VALIDATE", MaxFinals: 3, Concurrency: 1})
	return err
}

// replay plays game GAME of a past run again, alone, with the seating, every turn's log
// lines and the final ranking (see Replay for the numbering of pool games and finals).
func replay(ctx context.Context, r engine.Run, game int, trace func(string)) error {
	t := newTable(r)
	trace("Played again with fresh bot processes: the seating, the characters' names, the rooms and the seeds of the bots' own random.Random are the run's; a bot that keeps class-level state across games, or draws entropy of its own, may decide differently than in the run.")
	return Replay(ctx, t.ex, t.ents, t.opts, game, trace)
}

// LoadingOrder returns the indices of bots in the original's loading order: by module
// name (from the answer's author and heading, §1.4), and within one answer in definition
// order (the order the bots come in).
func LoadingOrder(bots []engine.Entrant) []int {
	names := make([]string, len(bots))
	for i, b := range bots {
		title := b.Heading
		if title == "" {
			title = b.Name
		}
		names[i] = ModuleName(b.Author, title)
	}
	order := make([]int, len(bots))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool { return names[order[x]] < names[order[y]] })
	return order
}

// reorder presents the bots to the engine in loading order: call k goes to run bot
// order[k], so the host's accounting stays in the run's order.
type reorder struct {
	engine.Exchanger
	order []int
}

func (r reorder) Exchange(ctx context.Context, calls []engine.Call) []engine.Reply {
	mapped := make([]engine.Call, len(calls))
	for i, c := range calls {
		if c.Bot >= 0 && c.Bot < len(r.order) {
			c.Bot = r.order[c.Bot]
		}
		mapped[i] = c
	}
	return r.Exchanger.Exchange(ctx, mapped)
}
