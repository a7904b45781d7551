// Package engine holds what every game engine shares: the game descriptor (Game: name,
// protocol, defaults, options, baselines, and the Play/Validate/Replay entry points over
// one Run signature) and its Registry, the contract between an engine and the bots it
// plays (faults and their outcomes; each protocol's small interface: Exchanger for
// pyclass, Launcher for argv, DirBots for dirfiles), Bot, the one bot type the host's
// packages pass around (an engine sees only its Entrant), the tournament result a publisher
// renders, seeded randomness, and the lockstep scheduler that runs many games at once
// while keeping every bot's view of the world a function of the seed alone.
//
// A game lives in one folder, engine/<game>: its rules, its descriptor and (pyclass) its
// Python module; engine/all lists the games of a build. Engines know nothing about
// processes, sandboxes or SQL: the host's protocols (runner/protocol/<name>, listed in
// runner/protocol/all) implement each protocol's interface over the sandbox.
package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Outcome says how one decision of a bot ended.
type Outcome string

// The outcomes of a decision. Everything but OK is a fault of the bot, except HostFault,
// which is the host's (the sandbox could not start, the machine ran out of processes):
// a game that meets a HostFault is voided instead of scored.
const (
	OK          Outcome = "ok"
	Timeout     Outcome = "timeout"
	Crash       Outcome = "crash"      // the process died, or the bot's code raised
	BadOutput   Outcome = "bad output" // an answer the rules cannot read
	MemoryLimit Outcome = "memory limit"
	OutputLimit Outcome = "output limit"
	Killed      Outcome = "killed" // killed by a signal the runner did not send for a limit
	HostFault   Outcome = "host fault"
)

// Outcomes lists every outcome in the order a leaderboard shows their counts.
var Outcomes = []Outcome{OK, Timeout, Crash, BadOutput, MemoryLimit, OutputLimit, Killed, HostFault}

// Fault is a decision that did not end in OK. The engine applies the rules' default action
// for it; the runner has already counted it.
type Fault struct {
	Outcome Outcome
	Detail  string // what a participant needs to understand it (exception text, signal, …)
	// ProcessDied is set when the bot's process is gone: any per-game state it held (a
	// Python instance, a generator) is lost and must be recreated before the next call.
	ProcessDied bool
	// AtLimit marks a memory fault the host saw for itself during a decision: the kernel
	// killed the bot for memory, or its process held at least half of its memory limit.
	// A bot can say it ran out of memory (raise MemoryError); it cannot fake this.
	AtLimit bool `json:"-"`
	// Benched marks the fault of a call the bot sat out, benched after its faults
	// (protocol.BenchedFault): the runner's answer, not the bot's doing, so a first fault
	// shown for the bot is a fault of its own when it has one.
	Benched bool `json:"-"`
	// Ruled marks an answer the rules read as a move: an invalid action they punish (Ruins:
	// death by trap), reported by the game's module (the harness's RulesAnswer). It is play,
	// not a failure to play: it is counted as a fault, but validation takes it as a decision
	// made, and it breaks a fault streak as an answer does. A bot can claim it for itself
	// (the harness runs in its process), which gains it nothing: the rules answer the move.
	Ruled bool `json:"-"`
}

func (f *Fault) Error() string {
	if f.Detail == "" {
		return string(f.Outcome)
	}
	return fmt.Sprintf("%s: %s", f.Outcome, f.Detail)
}

// Call is one request to one bot on behalf of one game. Method and Args are the harness's
// vocabulary (for the pyclass protocol: a method the challenge's harness serves).
type Call struct {
	Bot    int // index into the tournament's bot list
	Game   int // the game's index in the run; the bot keeps per-game state under it
	Method string
	// Args are marshalled to JSON: by their own AppendJSON if they implement JSONAppender
	// (the hot path of a game: no reflection, no allocation), else by encoding/json.
	Args any
}

// JSONAppender is implemented by call arguments that write their own JSON encoding. The
// result must be one valid JSON value; the runner does not check it.
type JSONAppender interface {
	AppendJSON(b []byte) []byte
}

// IntsAppender is implemented by call arguments that are a short list of integers (a forty
// decision: the throws and the scores). The pyclass runner then sends a batch of such calls
// packed, not as JSON, and the harness hands the challenge module a list of ints in place
// of the JSON value: on a field of cheap bots, parsing numbers out of JSON cost the bots
// more than their own decisions (docs/benchmarks.md). A batch with any other arguments goes
// as JSON, so the module must read both forms. The values must fit in 32 bits. Such
// arguments implement JSONAppender too (for that form, logs and validation messages).
type IntsAppender interface {
	AppendInts(b []int32) []int32
}

// Reply answers a Call: a JSON result, or a fault. Result may be shared between replies
// (the runner hands out one "true" for all of them): read it, never write into it.
type Reply struct {
	Result json.RawMessage
	Fault  *Fault
}

// Exchanger delivers a batch of calls and returns one reply per call, in the same order.
// Calls to the same bot are delivered to it in slice order. The runner implements it over
// long-lived bot processes; tests implement it with Go functions.
type Exchanger interface {
	Exchange(ctx context.Context, calls []Call) []Reply
}

// A Loader is an Exchanger that can start its bots before a run's first tick, as an
// original controller loads every bot before its first game: Load starts them all at once
// and returns when each is ready or has failed, with the CPU time the bots' side spent
// starting them (0: not measured). A bot whose start failed is answered with that failure
// at its first calls, as if those calls had started it. A run whose Exchanger is not a
// Loader starts each bot at its first calls.
type Loader interface {
	Load(ctx context.Context) (botsCPU time.Duration)
}

// Entrant is one competitor as an engine sees it.
type Entrant struct {
	Name     string // the name on the leaderboard (a class name, an answer title)
	Baseline bool   // a built-in reference bot, not a participant's
	Seed     uint64 // the bot's own seed (its random module's), derived from the run's
	// Author and Heading are the answer's owner and its first heading as posted, struck-out
	// words included (empty for built-in bots): some originals ordered their competitors
	// by them.
	Author, Heading string
}

// Bot is one prepared bot of a run, the one bot type the host's packages share: who it is
// to the engine (its Entrant) and where its program is. The cycle prepares it, the runner
// starts it, the store records it for replays and the publisher credits it. An engine sees
// only the Entrant (Run.Bots): engines know nothing of directories or processes.
type Bot struct {
	Entrant
	AnswerID int64    // the answer it comes from; 0 for built-in bots
	Dir      string   // its private directory, files materialised and built ("": played by the engine itself)
	Run      []string // the command that starts it, for one-shot protocols (argv, dirfiles)
}

// Entrants returns the engine's view of bots, in the same order.
func Entrants(bots []Bot) []Entrant {
	out := make([]Entrant, len(bots))
	for i, b := range bots {
		out[i] = b.Entrant
	}
	return out
}

// Progress receives a tournament's progress; done of total games have finished.
type Progress func(done, total int)
