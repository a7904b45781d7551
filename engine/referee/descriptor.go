// Package referee is the engine whose rules are a host's own program, a referee (like
// Botzone's judges or CodinGame's referees): kothd owns the bots, their sandboxes,
// time-outs, seeds, seatings, results and rankings; the referee, started by the host in
// a sandbox of its own for each game (engine.Referees), owns the rules, and reaches the
// bots only through kothd's relay. Its line protocol is docs/referee.md.
package referee

import (
	"runtime"

	"github.com/kothd/kothd/engine"
)

// Descriptor is the referee engine for long-lived bots that talk in lines (stdio).
var Descriptor = descriptor("referee", engine.Stdio)

// ArgvDescriptor is the referee engine for bots launched once per decision (argv), the
// message's words being their arguments.
var ArgvDescriptor = descriptor("referee-argv", engine.Argv)

func descriptor(name string, p engine.Protocol) *engine.Game {
	return &engine.Game{
		Name:        name,
		Protocol:    p,
		Games:       100,
		Concurrency: runtime.NumCPU(),
		Options:     func() any { return new(Options) },
		Play:        play,
		Validate:    validate,
		Replay:      replay,
		Batched:     true,
		Planned: func(r engine.Run, _ *engine.Result) int {
			o, err := optionsOf(r)
			if err != nil {
				return r.Games
			}
			return o.games(r)
		},
		Shards: sharding,
	}
}
