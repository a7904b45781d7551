package cron

import (
	"context"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/runner/protocol"
)

// Validation: before a bot enters, it plays a short validation game of its game's real
// engine (pyclass: against the game's baselines; argv and dirfiles: the game's fixed
// validation decisions), seeded, a small fixed number of decisions. It enters if at least
// one of its decisions ended well; a bot that faults on every one of them (crash, timeout,
// memory, bad output) is not entered, and the reason names the first fault and the input
// that caused it. Only decisions count: a bot whose constructor runs but whose every move
// raises (SafetyNet: `return` where the harness expects a generator) used to be entered
// and then faulted 4,031 times in a run. The cycle (prepare) and `kothd check` both come
// here, so check says what the cycle will do.

// validateBot validates bot e of an answer in a scratch copy of its directory.
func validateBot(ctx context.Context, env *PlayEnv, a protocol.Protocol, e engine.Bot) error {
	work, cleanup, err := scratch(env, a, "validate", []engine.Bot{e})
	if err != nil {
		return &engine.Fault{Outcome: engine.HostFault, Detail: err.Error()}
	}
	defer cleanup()
	return a.Validate(ctx, &env.Env, work[0])
}
