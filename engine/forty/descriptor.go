package forty

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/kothd/kothd/engine"
)

//go:embed harness.py
var harness []byte

// The yardstick of `kothd bench`: the same bots in one Python process, as the original
// controller played them.
//
//go:embed yardstick.py
var yardstick []byte

// Descriptor is the forty dice game as the host plays it: Python classes deriving from Bot,
// independent games of up to eight random seats, many at a time in lockstep.
//
// Games in flight: every tick wakes each bot's harness once, and on a host where a system
// call flushes the TLB (no PCID) the wake-up of a process whose caches the other bots have
// evicted costs more than a dozen calls' work. More games in flight put more calls in each
// wake-up: on the 48-answer benchmark field (testdata/fortyfield, docs/benchmarks.md), 8192
// games (two groups of 4096, about 80 calls per bot per batch, two batches per tick then)
// cost kothd 35 % and the bots 29 % less CPU per decision than 2048 did; 16384 (about 160
// calls per bot per batch) gave
// 10-18 % more games/s than 8192 over 60,000 games, for a peak RSS of about 185 MB against
// 110 MB; 32768 gained nothing more and held 290 MB. Since a tick became one batch per bot
// (about 320 calls), 16384 is still the best: 8192 played 60,000 games at 1,793 games/s
// against 2,304, and 32768 at 2,244 (more games in flight are more state out of the caches,
// kothd's and the harnesses', for each call). Since the harness's batch loop is C
// (runner/protocol/pyclass), a call costs the harness a fraction of what it did and the
// wake-up is most of a tick's cost: over 60,000 games 65536 played 11 % more games/s than
// 16384 (0.92× → 1.05× the yardstick, medians of three interleaved runs), and 32768 as
// many as 65536 (4,678 and 4,759 against 4,902 and 4,569 games/s, interleaved; against
// 16384 in two other pairs 1.5 and 4.6 % more, within the noise of 65536's gain), for less
// memory: on the bundled snapshot's 21 bots, kothd's peak RSS 178, 272 and 317 MB and the
// harnesses' resident sets 418, 565 and 787 MB in all at 16384, 32768 and 65536. A run of
// 20,000 games has every game in flight at either. A bot that cannot hold its share is
// played again with fewer games in flight (cron/crowd.go).
var Descriptor = &engine.Game{
	Name:        "forty",
	Protocol:    engine.PyClass,
	Games:       1_000_000, // §5.1
	Concurrency: 32768,     // in two groups of 16384 (engine.TickGroups); see above
	Baselines:   []string{"ThrowTwiceBot", "GoToTenBot"},
	Harness: &engine.Harness{Module: "forty", Source: harness,
		Competes:  "a bot is a class deriving directly from Bot (a class deriving from another bot does not compete)",
		Decisions: []string{"start", "next"}},
	Yardstick: yardstick,
	// The original controller shared its games among a pool of worker processes (-t, 4
	// by default): the yardstick can too (kothd bench --yardstick-workers).
	YardstickWorkers: true,
	Play:             play,
	Validate:         validate,
	Replay:           replay,
	Batched:          true,
	Shards:           sharding,
}

func play(ctx context.Context, r engine.Run) (*engine.Result, error) {
	sofar := func(t *Tally, seconds float64) *engine.Result { return Table(t, r.Bots, seconds) }
	tally, seconds, err := run(ctx, r.Calls, r.Bots, Options{Games: r.Games, Seed: r.Seed, Concurrency: r.Concurrency, Progress: r.Progress,
		Batches: r.Batches, Sofar: sofar})
	if err != nil {
		return nil, err
	}
	return sofar(tally, seconds), nil
}

// validate plays one game between the two copies of the bot.
func validate(ctx context.Context, r engine.Run) error {
	_, err := Run(ctx, r.Calls, r.Bots, Options{Games: 1, Concurrency: 1})
	return err
}

func replay(ctx context.Context, r engine.Run, game int, trace func(string)) error {
	trace("Played again alone with fresh bot processes: the seating, the dice and the seeds of the bots' random module are the run's; a bot that keeps class-level state across games, or draws entropy of its own, may decide differently than in the run.")
	res, err := Replay(ctx, r.Calls, r.Bots, r.Seed, game, trace)
	if err != nil {
		return err
	}
	for i, s := range res.Seats {
		trace(fmt.Sprintf("seat %d: %d points%s", i, s.Score, map[bool]string{true: " (won)"}[s.Won]))
	}
	return nil
}
