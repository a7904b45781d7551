package protocol

import (
	"cmp"
	"context"
	"log/slog"
	"time"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/runner/build"
	"github.com/kothd/kothd/runner/sandbox"
)

// Env is what a protocol needs to turn one challenge's bots into processes: the
// challenge, its game, and the host's sandbox. The cycle (cron.PlayEnv) holds one and adds
// what only it owns (the run's settings, checkpoints, progress).
type Env struct {
	Challenge *config.Challenge
	Config    *config.Config
	Game      *engine.Game
	Options   any          // the challenge's options, decoded for Game
	Bots      []engine.Bot // tournament order
	Sandbox   sandbox.Sandbox
	Memo      build.Memo // remembers failed builds and class listings by content (nil: none)
	Log       *slog.Logger
	// Shares is the cgroup of the run's bots while it plays: each answer's sandboxes
	// share one answer's CPU weight, and all of them limits.total_memory_mb. nil outside a
	// run (validation, class listing) and without cgroups.
	Shares *sandbox.Shares
	// Referee, when set, is the game's referee as resolved elsewhere (a cluster's worker
	// gets its directory and command with the job, having no languages table of its own);
	// nil: Referees resolves it from the options and the config.
	Referee *RefereeProgram
}

// Submission is an accepted answer materialised into a directory.
type Submission struct {
	AnswerID int64
	Author   string
	Title    string // the bot's name where the challenge takes it from the heading
	Heading  string // the first heading as posted, struck-out words included
	Language string
	Dir      string
}

// Protocol turns the bots of one protocol into processes: the only place that does. There
// is one per protocol (runner/protocol/pyclass, runner/protocol/argv, runner/protocol/dirfiles), listed in
// runner/protocol/all under the name the game's descriptor (engine.Game.Protocol) gives it.
type Protocol interface {
	// Prepare turns one submission's materialised directory into the bots it yields
	// (pyclass: one per competing class). A returned error rejects the submission with a
	// reason the participant can read; a HostFault is the host's failure.
	Prepare(ctx context.Context, env *Env, sub Submission) ([]engine.Bot, error)
	// Builtins are the game's baselines, when the challenge enables them.
	Builtins(ctx context.Context, env *Env) ([]engine.Bot, error)
	// Validate proves that a newly prepared bot (in a scratch copy) starts and answers,
	// with the game's short validation.
	Validate(ctx context.Context, env *Env, e engine.Bot) error
	// Open connects env.Bots (in scratch copies) to r, setting r's protocol interface
	// (Calls, Launch or Files), and returns each bot's accounting and a function that
	// stops their processes.
	Open(env *Env, r *engine.Run) (stats []*Stats, closeFn func(), err error)
	// ReadOnlyDirs says whether the protocol shows its bots their directories read-only
	// (they write nothing there), so that a scratch copy needs no filesystem of its own
	// (Scratch).
	ReadOnlyDirs() bool
}

// ValidationRun is the engine's view of a validation of env.Bots: seed 0, nothing else
// set (the game's validation fixes its own length) but the host's referee, for a game
// whose rules are one (Referees).
func ValidationRun(env *Env) engine.Run {
	r := engine.Run{Bots: engine.Entrants(env.Bots)}
	if ref := Referees(env); ref != nil { // the referee's game needs its options (shape, settings)
		r.Options, r.Referee = env.Options, ref
	}
	return r
}

// Limits turns a challenge's configured limits into the sandbox's.
func Limits(env *Env) sandbox.Limits {
	l := env.Challenge.Limits
	return sandbox.Limits{
		CPUTime:     time.Duration(l.CPUSeconds) * time.Second,
		MemoryMB:    l.MemoryMB,
		Procs:       l.Procs,
		OpenFiles:   l.OpenFiles,
		OutputBytes: int64(l.OutputKB) << 10,
		FileSizeMB:  l.DiskMB,
		// Unset, the directory's allowance is the documented default, as the file's is.
		DirMB: cmp.Or(l.DiskMB, sandbox.DefaultFileSizeMB),
	}
}

// EngineBuiltins are the game's baselines as bots the engine plays itself (entries without
// a directory or command): the Builtins of protocols whose engines play their baselines.
func EngineBuiltins(env *Env) []engine.Bot {
	if !env.Challenge.Baselines {
		return nil
	}
	var out []engine.Bot
	for _, n := range env.Game.Baselines {
		out = append(out, engine.Bot{Entrant: engine.Entrant{Name: n, Baseline: true}})
	}
	return out
}

// Unordered is implemented by a protocol whose own accounting (Open's stats) does not follow
// game order: pyclass, whose one batch carries many games' calls, counts a decision when it
// is answered. The cycle then counts that protocol's decisions in its ledger, game by game,
// even in a run without checkpoints, so that the faults of games an engine discards are
// dropped and the first fault is the same whatever the concurrency. (argv folds its units in
// unit order, dirfiles plays one game at a time: their own accounting is in order.)
type Unordered interface {
	UnorderedStats()
}

// InGameOrder reports whether p's own accounting follows game order (see Unordered).
func InGameOrder(p Protocol) bool {
	_, u := p.(Unordered)
	return !u
}
