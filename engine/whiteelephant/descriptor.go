package whiteelephant

import (
	"context"
	_ "embed"

	"github.com/kothd/kothd/engine"
)

//go:embed harness.py
var harness []byte

// The yardstick of `kothd bench`: the same bots in one Python process, as the original
// controller played them.
//
//go:embed yardstick.py
var yardstick []byte

// Descriptor is the White Elephant Exchange as the host plays it: Python classes deriving from
// WhiteElephantBot, one long game to 500 points by default (the original contest).
var Descriptor = &engine.Game{
	Name:     "whiteelephant",
	Protocol: engine.PyClass,
	Games:    1,
	// Every contest of a run at once, up to 256: a round is a chain of single calls, so a
	// tick holds one call per game in flight, and only many games give each process several
	// calls per round trip (16 games: ~1.2; 256: ~10). The table is the same at any value.
	Concurrency: 256,
	Options:     func() any { return new(Options) }, // the challenge's `options:` block: winning_score
	Baselines:   []string{"RandomBot", "GreedyBot", "NiceBot"},
	Harness: &engine.Harness{Module: "whiteelephant", Source: harness,
		Competes: "a bot is a class deriving from WhiteElephantBot", Decisions: []string{"turn"}},
	Yardstick: yardstick,
	Play:      play,
	Validate:  validate,
	Replay:    replay,
}

func play(ctx context.Context, r engine.Run) (*engine.Result, error) {
	o := engine.OptionsOf[Options](r)
	o.Seed, o.Games, o.Concurrency, o.Progress = r.Seed, r.Games, r.Concurrency, r.Progress
	// Policy faults (an unhashable answer) are answered by the harness, so the runner
	// counted them as good decisions; record them where participants look for faults.
	// They name no game: the host counts them at once.
	o.OnFault = func(bot int, f *engine.Fault, in any) { r.Fault.Record(engine.At{Game: engine.NoGame}, bot, f, in) }
	return Play(ctx, r.Calls, r.Bots, o)
}

// validate plays three short games between the bot and its opponents (the validation's).
// A take_turn that raises disqualifies the bot for its game, as in the original, so a bot
// that raises on every turn is asked one decision per game: three games ask it enough to
// tell one that cannot play (pyclass's minDecisions). An answer the driver's test cannot
// read is resolved by opening a present: play.
func validate(ctx context.Context, r engine.Run) error {
	_, err := Play(ctx, r.Calls, r.Bots, Options{WinningScore: 5, Games: 3})
	return err
}

// replay plays game GAME of a past run again, alone, with the original driver's verbose
// log (every round's turn order, openings, steals, disqualifications) and the final
// scores. Games are numbered from 0 as the run played them; a run of the original contest
// has the one game 0.
func replay(ctx context.Context, r engine.Run, game int, trace func(string)) error {
	trace("Played again alone with fresh bot processes: the names, turn orders, present values and the seeds of the bots' random module are the run's; a bot that keeps class-level state across games, or draws entropy of its own, may decide differently than in the run.")
	o := engine.OptionsOf[Options](r)
	o.Seed, o.Games = r.Seed, r.Games
	return Replay(ctx, r.Calls, r.Bots, o, game, trace)
}
