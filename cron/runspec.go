package cron

import (
	"cmp"

	"github.com/kothd/kothd/internal/stats"
)

// RunSpec is one run's settings, resolved once (PlayEnv.resolve) from what was asked
// (--games), the challenge and the game's defaults, and then only read: by the store's
// run row, the live progress file, the checkpoints, the engine's Run, the adaptive length
// and the board. Its fields are unexported and its methods return copies, so every part
// of a run sees the same numbers; a run that needs other settings (a replay, a seed chosen
// later) gets a new value.
type RunSpec struct {
	seed        uint64
	asked       int       // games asked for: --games, else the challenge's; 0: the game's default
	games       int       // games the engine is asked for: asked, else the game's default
	concurrency int       // games in flight: the challenge's, else the game's
	options     any       // the challenge's options, decoded for the game
	adaptive    *adaptive // the adaptive length's settings, never mutated (startAdaptive copies); nil: a fixed length
}

// resolve makes the run description of a run of env asking for asked games (0: the
// challenge's games, else the game's default). The seed is set later (withSeed): whether a
// run resumes an interrupted one, and so which seed it plays, depends on its bot set's
// hash, which reads the description.
func (env *PlayEnv) resolve(asked int) RunSpec {
	ch, g := env.Challenge, env.Game
	// Negative numbers are refused when the config is loaded, and --games takes only
	// positive ones: zero is the one "unset".
	s := RunSpec{asked: cmp.Or(asked, ch.Games), concurrency: cmp.Or(ch.Concurrency, g.Concurrency), options: env.Options}
	s.games = cmp.Or(s.asked, g.Games)
	if c := ch.Adaptive; c != nil && g.Batched && s.games > 0 {
		// The engine cannot stop early, or there is no budget: the config refuses both,
		// so this only guards a config that was not validated against the engines.
		a := &adaptive{confidence: c.Confidence, batch: c.Batch, minGames: c.MinGames, budget: s.games}
		if !(a.confidence > 0 && a.confidence < 1) { // unset (or NaN from a config not checked): at NaN every pair would count as separated
			a.confidence = stats.Confidence
		}
		if a.batch <= 0 {
			a.batch = max(s.games/10, 1)
		}
		if a.minGames <= 0 {
			a.minGames = a.batch
		}
		s.adaptive = a
	}
	return s
}

// withSeed is s played with the given master seed.
func (s RunSpec) withSeed(seed uint64) RunSpec {
	s.seed = seed
	return s
}

// withConcurrency is s played with n games in flight: a resumed run's recorded value.
func (s RunSpec) withConcurrency(n int) RunSpec {
	s.concurrency = n
	return s
}

// Seed is the run's master seed.
func (s RunSpec) Seed() uint64 { return s.seed }

// Asked is the number of games the run was asked for (--games, else the challenge's
// games), 0 when neither says: the run's settings as the bot set's hash knows them.
func (s RunSpec) Asked() int { return s.asked }

// Games is the number of games the engine is asked for (an engine playing in units, like
// Bank Heist's tournaments, may plan a few more: engine.Game.Planned); 0 only when neither
// the run, the challenge nor the game names one.
func (s RunSpec) Games() int { return s.games }

// Concurrency is how many games the engine keeps in flight.
func (s RunSpec) Concurrency() int { return s.concurrency }

// Options are the challenge's options, decoded for its game.
func (s RunSpec) Options() any { return s.options }

// startAdaptive is a fresh adaptive length for the run (nil for a fixed length): its
// settings copied out of the description, which stays as it was.
func (s RunSpec) startAdaptive() *adaptive {
	if s.adaptive == nil {
		return nil
	}
	a := *s.adaptive
	a.seed = s.seed
	return &a
}
