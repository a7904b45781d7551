package referee

import (
	"errors"
	"fmt"
	"time"

	"github.com/kothd/kothd/engine"
)

// Options is a referee challenge's `options:` block: which program holds the rules and
// the tournament's shape. kothd chooses every game's seating from the run's seed, so the
// statistics, resumes and shards work as for any engine.
type Options struct {
	Referee Program `yaml:"referee"`
	// Shape is how games are seated: "free-for-all" (every game seats every bot, in an
	// order drawn from the game's seed; the default), "random" (each game seats Seats bots
	// drawn from the game's seed) or "round-robin" (each ordered pair of bots in turn: every
	// pair, both colours).
	Shape string `yaml:"shape"`
	// Seats is the number of bots of a "random" game (default 2).
	Seats int `yaml:"seats"`
	// GamesPerPairing, for "round-robin", plays every ordered pair that many times (the run
	// is then 2·k·n(n-1)/2 games whatever `games:` says); 0: the run's games, cycling
	// through the pairs.
	GamesPerPairing int `yaml:"games_per_pairing"`
	// Timeout bounds how long kothd waits for each of the referee's lines ("10s" by
	// default); a referee past it is killed and its game voided.
	Timeout string `yaml:"timeout"`
	// Settings are passed to the referee as they are, in the game's first line.
	Settings map[string]any `yaml:"settings"`
}

// Program is the referee: a directory of the host's (relative to the config file), a
// language of the `languages:` table, and its main file (default: the language's file).
type Program struct {
	Dir      string `yaml:"dir"`
	Language string `yaml:"language"`
	File     string `yaml:"file"`
}

// RefereeProgram tells the host which program to start (engine.HasReferee).
func (o *Options) RefereeProgram() engine.RefereeSpec {
	return engine.RefereeSpec{Dir: o.Referee.Dir, Language: o.Referee.Language, File: o.Referee.File}
}

// The shapes.
const (
	FreeForAll = "free-for-all"
	Random     = "random"
	RoundRobin = "round-robin"
)

// errRoundRobinBots is a round robin of fewer than two bots (a validation's one is fine).
var errRoundRobinBots = errors.New("a round robin needs two bots")

// DefaultTimeout is a referee's allowance per line.
const DefaultTimeout = 10 * time.Second

// check completes o and says what is wrong with it.
func (o *Options) check(bots int) error {
	if o.Referee.Dir == "" || o.Referee.Language == "" {
		return fmt.Errorf("options.referee needs dir and language (the referee's directory and a language of the languages table)")
	}
	switch o.Shape {
	case "":
		o.Shape = FreeForAll
	case FreeForAll, RoundRobin:
	case Random:
		if o.Seats == 0 {
			o.Seats = 2
		}
		if o.Seats < 1 {
			return fmt.Errorf("options.seats: %d seats", o.Seats)
		}
	default:
		return fmt.Errorf("options.shape %q: the shapes are %s, %s and %s", o.Shape, FreeForAll, Random, RoundRobin)
	}
	if o.GamesPerPairing < 0 || o.GamesPerPairing > 0 && o.Shape != RoundRobin {
		return fmt.Errorf("options.games_per_pairing is for the %s shape, with a positive count", RoundRobin)
	}
	if o.Timeout != "" {
		if d, err := time.ParseDuration(o.Timeout); err != nil || d <= 0 {
			return fmt.Errorf("options.timeout %q: a duration such as 10s", o.Timeout)
		}
	}
	if o.Shape == RoundRobin && bots < 2 {
		return fmt.Errorf("%w, not %d", errRoundRobinBots, bots)
	}
	return nil
}

// Validate checks the options as the config gives them (the number of bots is the run's):
// the host learns of a missing referee or a misspelt shape when the config is loaded.
func (o *Options) Validate() error {
	c := *o
	return c.check(2)
}

// timeout is the referee's allowance per line.
func (o *Options) timeout() time.Duration {
	if d, err := time.ParseDuration(o.Timeout); err == nil && d > 0 {
		return d
	}
	return DefaultTimeout
}

// games is the run's length: a round robin's with games per pairing, else the run's.
func (o *Options) games(r engine.Run) int {
	if o.Shape == RoundRobin && o.GamesPerPairing > 0 {
		n := len(r.Bots)
		return o.GamesPerPairing * n * (n - 1)
	}
	return r.Games
}

// seating is game g's seats, by bot index: a function of the seed and the game alone.
func (o *Options) seating(n int, seed uint64, g int) []int {
	if o.Shape == RoundRobin {
		p := g % (n * (n - 1)) // the ordered pairs, first seat major
		a, b := p/(n-1), p%(n-1)
		if b >= a {
			b++
		}
		return []int{a, b}
	}
	perm := engine.NewRand(engine.SubSeed(engine.GameSeed(seed, g), "seating")).Perm(n)
	if o.Shape == Random {
		return perm[:min(o.Seats, n)]
	}
	return perm
}

// optionsOf is the run's options, checked and completed.
func optionsOf(r engine.Run) (Options, error) {
	o := engine.OptionsOf[Options](r)
	if err := o.check(len(r.Bots)); err != nil {
		return o, fmt.Errorf("referee: %w", err)
	}
	return o, nil
}
