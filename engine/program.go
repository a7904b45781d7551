package engine

import (
	"context"
	"time"
)

// Stdio is the protocol of long-lived bots: an answer is a program in any language that
// reads one line on stdin per decision and answers one line on stdout (Run.Lines). Its
// process lives for one unit of play (a referee's game).
const Stdio Protocol = "stdio"

// Lines reaches the bots of the Stdio protocol. A bot's process is started by its first
// Ask in a unit and lives until EndUnit: it keeps whatever state it likes within the unit,
// and a unit played beside it cannot see it. A process that died is started afresh at the
// bot's next Ask. Ask may be called concurrently for different bots or units.
type Lines interface {
	// Ask writes line (one line, no newline) to bot's process in unit and returns its reply
	// line. check, when set, reads the reply by the rules: a fault it returns is the
	// decision's. The decision is counted in the bot's accounting, described by input.
	Ask(ctx context.Context, unit int, at At, bot int, line string, input any, check func(reply string) *Fault) (string, *Fault)
	// EndUnit stops the unit's processes.
	EndUnit(unit int)
}

// RefereeSpec names a host's own program that holds a challenge's rules (engine/referee):
// the directory it lives in (the host's, shown to it read-only), the language of the
// host's `languages:` table it runs with, and its main file there (the language's file
// when empty).
type RefereeSpec struct {
	Dir, Language, File string
}

// HasReferee is implemented by the options of a game whose rules are a host's program:
// the host then starts that program for the engine (Run.Referee).
type HasReferee interface {
	RefereeProgram() RefereeSpec
}

// Referees starts a game's referee, a host program in its own sandbox, one process per
// game. Start may be called concurrently.
type Referees interface {
	Start(ctx context.Context) (Referee, error)
}

// Referee is one referee process, spoken to in lines.
type Referee interface {
	// Exchange writes line (nil: nothing) and waits until timeout for the referee's next
	// line. An error says why there is none (the process died, stayed silent, wrote a line
	// past the output limit), with the tail of its stderr.
	Exchange(line []byte, timeout time.Duration) ([]byte, error)
	// Close stops the process and removes what it was given.
	Close()
}
