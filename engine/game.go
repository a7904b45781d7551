package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"

	"go.yaml.in/yaml/v3"
)

// Protocol is how a game's bots are reached. Each game has exactly one; the host has one
// package per protocol (runner/protocol/<name>), the only place where a protocol becomes processes.
type Protocol string

const (
	// PyClass: an answer is a Python class, hosted by a harness process that serves calls
	// (Run.Calls). The game's Harness module defines the base class.
	PyClass Protocol = "pyclass"
	// Argv: an answer is a program in any language, launched once per decision with the
	// decision's arguments; its answer is what it prints (Run.Launch).
	Argv Protocol = "argv"
	// DirFiles: an answer is a program in its own directory, run once per decision and
	// talking through files there (Run.Files).
	DirFiles Protocol = "dirfiles"
)

// Game describes one game: everything the host needs to play it, in the game's own folder
// (engine/<game>). engine/all lists the games a build has.
type Game struct {
	Name     string // the engine's name in config.yaml (`engine:`)
	Protocol Protocol
	// Games is the default number of games per run (when neither the run nor the
	// challenge sets one); 0 lets Play choose (its rules' own stopping point).
	Games int
	// Concurrency is the default of Run.Concurrency (games, tournaments or bots in flight).
	Concurrency int
	// Options returns a pointer to the zero value of the game's options (the challenge's
	// `options:` block); nil when the game has none. Decoding is strict: an unknown key
	// is an error, so a misspelt option never goes unnoticed.
	Options func() any
	// Baselines are the game's built-in bots, entered when a challenge sets `baselines`.
	// PyClass: classes of the Harness module's BASELINES; Argv: bots Play plays itself.
	Baselines []string
	// Harness is the PyClass protocol's Python module (nil for the others).
	Harness *Harness
	// Batched says Play honours Run.Batches (checkpoints, resume, early end).
	Batched bool
	// Shards, when set, lets a cluster play the run in shards of consecutive games
	// (shard.go); nil: the game is played in one piece.
	Shards *Sharding

	// Play plays a run and returns its table.
	Play func(ctx context.Context, r Run) (*Result, error)
	// Validate plays a short check with r.Bots, fresh copies of one new bot (PyClass: two
	// copies; otherwise one): an error rejects the bot with its text; a *Fault with
	// HostFault is the host's failure. A PyClass bot that never answers any call is also
	// rejected, by the adapter.
	Validate func(ctx context.Context, r Run) error
	// Replay plays game number game of a past run (r as the run had it) again, alone, and
	// writes its trace: first a line saying what the replay reproduces exactly.
	Replay func(ctx context.Context, r Run, game int, trace func(string)) error
	// Planned returns how many games a run played, numbered from 0 as Replay numbers them,
	// given the table it recorded (nil if it did not finish). nil: r.Games.
	Planned func(r Run, recorded *Result) int
	// Yardstick (optional, engine/<game>/yardstick.py) is the game's yardstick for `kothd
	// bench`: a Python program that plays the same bots and games the way the original
	// controller did (PyClass: every class in one process; Argv, DirFiles: each bot's own
	// program launched per decision, unsandboxed), in one plain loop.
	Yardstick []byte
	// YardstickWorkers says the yardstick can share its games among worker processes
	// (yardcommon.in_workers), as the original controller could (forty's, a pool of four
	// by default): `kothd bench --yardstick-workers N` then plays it so.
	YardstickWorkers bool
	// DirNames (DirFiles) returns the name of each bot's directory during a run: bots
	// learn their own name from it. nil: any unique names.
	DirNames func(bots []Entrant) []string
}

// Harness is a PyClass game's Python module: it defines the challenge's base class, which
// classes compete, the built-in bots (BASELINES) and a Handler serving the game's calls.
type Harness struct {
	Module string // the module name, e.g. "forty" (installed as forty.py)
	Source []byte // embedded from the game's folder
	// Competes says which classes compete, for the message that rejects an answer that
	// has none.
	Competes string
	// Decisions are the methods that are a bot's decisions (forty's "start" and "next");
	// the others set a game up or tear it down ("new", "end"). Validation enters a bot
	// only if one of its decisions ended well, and a run benches a bot after a stretch of
	// faulted decisions (limits.fault_streak). Empty: every method but "end".
	Decisions []string
}

// IsDecision says whether a call of method is one of the bot's decisions.
func (h *Harness) IsDecision(method string) bool {
	if h == nil || len(h.Decisions) == 0 {
		return method != "end"
	}
	for _, d := range h.Decisions {
		if d == method {
			return true
		}
	}
	return false
}

// Run is one run of a game: the one signature every engine plays with.
type Run struct {
	Bots []Entrant // tournament order
	Seed uint64    // the run's master seed
	// Games is the run's number of games: the one asked for, else the challenge's, else
	// Game.Games (0: the game's rules decide).
	Games       int
	Concurrency int       // games (or tournaments, bots) in flight; never changes a table
	Options     any       // the decoded options (Game.Options's type), never nil if it has options
	Progress    Progress  // optional
	Fault       FaultSink // optional
	Calls       Exchanger // PyClass
	Launch      Launcher  // Argv
	Files       DirBots   // DirFiles
	Lines       Lines     // Stdio
	// Referee starts the host's rules program, for a game whose options name one
	// (HasReferee); nil otherwise.
	Referee Referees
	// Batches, when set (only for a game with Game.Batched), has the run report its games in
	// batches, folded in game order, so that it can be checkpointed, resumed and ended early.
	Batches *Batches
}

// Checkpoint is a run's state after its first Done games (numbered from 0): from it the run
// goes on as if it had never stopped. State is the engine's own encoding of its tallies and
// of whatever else the rest of the run depends on; only the engine that wrote it reads it.
type Checkpoint struct {
	Done  int
	State []byte
}

// Batches is how a host checkpoints a long run, resumes it after a crash, and ends it early
// once its order is settled (adaptive length).
type Batches struct {
	// Resume, when set, starts the run after Resume.Done games, from Resume.State: the
	// games before it are not played again, and the table at the end is the one an
	// uninterrupted run with the same seed would have given (bots that keep state across
	// games in their process excepted: their processes are new).
	Resume *Checkpoint
	// Every is the batch size in games; the engine may round it up to its own unit of play
	// (a whole tournament where state carries across games).
	Every int
	// Done is called, in game order, each time the run's first cp.Done games have all
	// finished and a batch boundary is reached, with the state to resume from; sofar builds
	// the table of those games (only when the host needs it: it may cost a little). It
	// returns stop to end the run there, its table being sofar's; an error aborts the run.
	Done func(cp Checkpoint, sofar func() *Result) (stop bool, err error)
}

// At names a decision's place in its run, in every protocol: the game it belongs to and its
// turn there. The host counts each decision under its game and adds a game's accounting to
// the run's only once every game before it has been folded, so the accounting (the fault
// counts, the first fault) at a checkpoint is exactly that of the games before it, and the
// same whatever the concurrency or where a run was resumed.
type At struct {
	// Game is the game's index in the run, numbered from 0 as Replay numbers them (Bank
	// Heist: across its tournaments, tournament 0's games first). NoGame: a decision that
	// belongs to no game of the run (validation, a harness's own policy faults).
	Game int
	// Turn is the decision's number within its game as the engine counts them (Bank
	// Heist: the round, 1 or 2; Mafia: the runs of the game so far). It is only reported.
	Turn int
}

// NoGame is At.Game of a decision outside the run's games: the host counts it at once.
const NoGame = -1

// FaultSink records a decision that the protocol adapter did not see end as it did: one the
// engine settled itself (a built-in bot's, f nil for a good one) or an answer the bot gave
// that the rules refuse although the protocol accepted it. input describes the decision.
// An engine that plays games concurrently calls it concurrently.
type FaultSink func(at At, bot int, f *Fault, input any)

// Record calls the sink when there is one.
func (s FaultSink) Record(at At, bot int, f *Fault, input any) {
	if s != nil {
		s(at, bot, f, input)
	}
}

// Launcher runs the bots of the Argv protocol: bot's program once, with args appended.
// check, when set, reads the answer by the rules: a fault it returns is the decision's.
// Every decision is counted in the bot's accounting, described by input. Launch may be
// called concurrently.
//
// unit is the independent unit of play the decision belongs to (a Bank Heist tournament;
// 0 for a game that has one). Each unit has its own copy of every bot's directory and its
// own processes, so a bot that keeps files between decisions (the rules forbid it, nothing
// can prevent it) cannot carry state from one unit to another played beside it, and the
// table does not depend on how many units run at once. EndUnit releases a unit's copies.
//
// at names the decision's game and turn (its game numbered across the units).
type Launcher interface {
	Launch(ctx context.Context, unit int, at At, bot int, args []string, input any, check func(answer string) *Fault) (string, *Fault)
	EndUnit(unit int)
	// Command is bot's command line as a participant would type it, for messages.
	Command(bot int) string
}

// DirBots reaches the bots of the DirFiles protocol, each a program in its own directory.
// Calls for one bot never overlap; calls for different bots may run concurrently.
type DirBots interface {
	// Setup starts game game (At.Game's numbering) for the bot: its players file lists the
	// game's players, its from_server and to_server are emptied.
	Setup(game, bot int, players []string) error
	// Deliver replaces the bot's from_server with text (possibly empty).
	Deliver(bot int, text string) error
	// Run runs the bot once. With collect, it returns what the bot wrote to to_server and
	// empties it; without, the output is left where it is. A timed-out or over-long answer
	// comes back empty, with its fault. at names the run's game and turn.
	Run(ctx context.Context, at At, bot int, collect bool) (string, *Fault)
	// LastExit is the exit status of the bot's last run, -1 when it did not exit by
	// itself (a signal, a timeout, a program that never started).
	LastExit(bot int) int
}

// DirKeeper is implemented by DirBots whose bots' directories a checkpoint can hold: the
// files a bot keeps between games (Mafia's bots may keep notes across a tournament). An
// engine whose bots keep files saves them with its checkpoint state, and a resumed run
// gives them back before the bots' first run, so each bot finds what it left.
type DirKeeper interface {
	// Keep returns what bot's directory holds beyond its prepared files, encoded; an
	// error wrapping ErrNoCheckpoint when there is too much to hold.
	Keep(bot int) ([]byte, error)
	// Restore gives bot the files Keep returned, before its first run.
	Restore(bot int, kept []byte) error
}

// ErrNoCheckpoint, returned (wrapped) by an engine's state encoder, skips that checkpoint:
// the state cannot be held whole (a bot keeps more files than a checkpoint holds), and a
// checkpoint that lost part of it would resume a run that is not the one played straight.
// The run goes on; a kill resumes it from an earlier checkpoint.
var ErrNoCheckpoint = errors.New("no checkpoint here")

// DecodeOptions reads a challenge's `options:` block (nil or empty: none) into the game's
// options, strictly: unknown keys and wrong types are errors.
func (g *Game) DecodeOptions(node *yaml.Node) (any, error) {
	if g.Options == nil {
		if node != nil && node.Kind != 0 && !(node.Kind == yaml.MappingNode && len(node.Content) == 0) {
			return nil, fmt.Errorf("the %s engine has no options", g.Name)
		}
		return nil, nil
	}
	o := g.Options()
	if node == nil || node.Kind == 0 {
		return o, nil
	}
	raw, err := yaml.Marshal(node)
	if err != nil {
		return nil, fmt.Errorf("options: %w", err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(o); err != nil {
		return nil, fmt.Errorf("options of the %s engine: %w", g.Name, err)
	}
	return o, nil
}

// OptionsOf returns r's options as the game's type (a zero value when r has none).
func OptionsOf[T any](r Run) T {
	if o, ok := r.Options.(*T); ok && o != nil {
		return *o
	}
	var zero T
	return zero
}

// Check reports what is wrong with a descriptor, for the registry.
func (g *Game) Check() error {
	if g.Name == "" {
		return fmt.Errorf("a game without a name")
	}
	switch g.Protocol {
	case PyClass:
		if g.Harness == nil || g.Harness.Module == "" || len(g.Harness.Source) == 0 {
			return fmt.Errorf("game %s: the pyclass protocol needs a harness module", g.Name)
		}
	case Argv, DirFiles, Stdio:
	default:
		return fmt.Errorf("game %s: unknown protocol %q", g.Name, g.Protocol)
	}
	if g.Play == nil || g.Validate == nil || g.Replay == nil {
		return fmt.Errorf("game %s: Play, Validate and Replay are required", g.Name)
	}
	if g.Options != nil {
		if v := reflect.ValueOf(g.Options()); v.Kind() != reflect.Pointer || v.IsNil() {
			return fmt.Errorf("game %s: Options must return a pointer", g.Name)
		}
	}
	return nil
}
