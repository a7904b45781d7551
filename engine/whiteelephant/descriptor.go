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
	o.OnFault = r.Fault.Record
	return Play(ctx, r.Calls, r.Bots, o)
}

// validate plays a short game between two copies of the bot. It proves the class can be
// hosted; a take_turn that raises is not a validation failure but, as in the original, a
// disqualification shown on the leaderboard.
func validate(ctx context.Context, r engine.Run) error {
	_, err := Play(ctx, r.Calls, r.Bots, Options{WinningScore: 5})
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
