package cron

import (
	"context"
	"fmt"
	"log/slog"
	"sort"

	"kothd/config"
	"kothd/engine"
	"kothd/runner"
)

// Entry is one accepted, prepared bot as the cycle hands it to an engine adapter.
type Entry struct {
	Name     string // leaderboard name (class name for pyclass, answer title otherwise)
	Baseline bool
	AnswerID int64  // 0 for built-in bots
	Author   string // answer owner's display name
	Title    string // the answer's heading
	Dir      string // the bot's private directory, files materialised and built
	Run      []string
	Seed     uint64 // the bot's own seed, derived from the run seed and its name
}

// PlayEnv is everything an engine adapter needs to play one run.
type PlayEnv struct {
	Challenge *config.Challenge
	Config    *config.Config
	Bots      []Entry // tournament order
	Seed      uint64
	Games     int // games requested (0: the challenge's or engine's default)
	Sandbox   runner.Sandbox
	Progress  engine.Progress
	Log       *slog.Logger
}

// Played is an adapter's answer: the table, and the fault accounting of each bot (same
// order as PlayEnv.Bots).
type Played struct {
	Result *engine.Result
	Stats  []*runner.Stats
	Games  int // games planned
}

// Adapter connects one engine to the runner's protocol and plays a run.
type Adapter interface {
	// Prepare turns one submission's materialised directory into the bots it yields
	// (pyclass: one per competing class). A returned error rejects the submission with a
	// reason the participant can read.
	Prepare(ctx context.Context, env *PlayEnv, sub Submission) ([]Entry, error)
	// Builtins are the engine's own bots the challenge enables (baselines, fillers that
	// score are not included: fillers stay inside the engine).
	Builtins(ctx context.Context, env *PlayEnv) ([]Entry, error)
	Play(ctx context.Context, env *PlayEnv) (*Played, error)
}

// Validator is implemented by adapters that can prove a newly prepared bot starts and
// answers (a short validation game) before it enters. Bots that passed once are not
// validated again until their answer changes.
type Validator interface {
	Validate(ctx context.Context, env *PlayEnv, e Entry) error
}

// Submission is an accepted answer materialised into a directory.
type Submission struct {
	AnswerID int64
	Author   string
	Title    string
	Language string
	Dir      string
}

// decodeOptions reads the challenge's engine-specific `options:` block (if any) into o.
func decodeOptions(env *PlayEnv, o any) error {
	if env.Challenge.Options.Kind == 0 {
		return nil
	}
	if err := env.Challenge.Options.Decode(o); err != nil {
		return fmt.Errorf("options of challenge %s: %w", env.Challenge.Name, err)
	}
	return nil
}

var adapters = map[string]Adapter{}

// register makes an engine available under its config name; each adapter file calls it
// from init.
func register(name string, a Adapter) { adapters[name] = a }

// adapterFor returns the adapter of an engine, or an error saying it does not exist yet.
func adapterFor(name string) (Adapter, error) {
	a, ok := adapters[name]
	if !ok {
		return nil, fmt.Errorf("engine %q not available", name)
	}
	return a, nil
}

// Engines lists the available engines.
func Engines() []string {
	var out []string
	for k := range adapters {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
