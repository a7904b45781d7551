// Package mafia is the engine of "Let's play Mafia!" (codegolf 151341), following the
// original controller (undergroundmonorail/Mafia-Engine), summarised in docs/games/mafia.md
// ("spec §n" below names a section of the rules kothd was written from): day 0, days of 50 action rounds,
// plurality lynch, night kills, investigations and saves, and the question's ratio scoring
// over many games.
//
// Bots are programs in their own directories, started once per decision and talking
// through files (the runner's dirfiles protocol). The engine sees them only through Bots.
// Files a bot keeps in its directory persist across the games of a tournament, so games
// are played one after another; within one action round no bot can see another's answer,
// so the bots of a round run concurrently and their answers are applied in day order
// afterwards, which makes the game identical to a sequential one.
package mafia

import (
	"context"
	"fmt"
	"sort"
	"strconv"

	"github.com/kothd/kothd/engine"
)

// Bots reaches the programs of a tournament's listed bots (indices as in the entrant list):
// the dirfiles protocol's interface. The host's dirfiles adapter implements it; tests
// implement it with Go functions.
type Bots = engine.DirBots

// Rules fixed by the original controller and the spec's engine additions.
const (
	MinPlayers    = 6  // fewer bots are filled up with Randy (engine addition)
	ActionRounds  = 50 // action rounds per day
	StalemateDays = 10 // days and nights without a death before a game is abandoned
	DefaultGames  = 100
)

// Options configure a tournament.
type Options struct {
	Games int // games per tournament; 0 means DefaultGames
	// Parallel is how many bots run at once within an action round or a night. It does not
	// change results; 0 means 1.
	Parallel int
	// Log, when set, receives each game's narrative log (spec §2.9), line by line: roles,
	// days, every vote and speech, lynches, the night's choices and the outcome. It changes
	// nothing in the game. Lineup.Play calls it from its own goroutine.
	Log func(line string)
	// Game is the game's number in the run (engine.At.Game), which Lineup.Play tells the
	// bots' protocol with every decision; Play and Replay set it for each game.
	Game int
	// Batches, when set, checkpoints the tournament game by game and resumes it
	// (engine.Batches; checkpoint.go).
	Batches *engine.Batches
}

// Lineup is the players of every game of a tournament: the listed bots under their game
// names (spec §1.6), then the Randy fillers that bring the game up to six players.
type Lineup struct {
	Names []string // Names[i] for i < Bots is entrant i's game name; the rest are fillers
	Bots  int
}

// NewLineup gives each entrant its game name: only ASCII letters and digits, "Bot" if none
// are left, never "no", made unique by appending 2, 3, …; fillers are Randy1, Randy2, …
// under the first names not taken.
func NewLineup(entrants []string) Lineup {
	taken := map[string]bool{"no": true}
	unique := func(base string) string {
		name := base
		for k := 2; taken[name]; k++ {
			name = base + strconv.Itoa(k)
		}
		taken[name] = true
		return name
	}
	l := Lineup{Bots: len(entrants)}
	for _, e := range entrants {
		base := normalise(e)
		base = string(deleteSpaces([]byte(base)))
		if base == "" {
			base = "Bot"
		}
		l.Names = append(l.Names, unique(base))
	}
	for k := 1; len(l.Names) < MinPlayers; k++ {
		if n := "Randy" + strconv.Itoa(k); !taken[n] {
			taken[n] = true
			l.Names = append(l.Names, n)
		}
	}
	return l
}

func deleteSpaces(b []byte) []byte {
	out := b[:0]
	for _, c := range b {
		if c != ' ' {
			out = append(out, c)
		}
	}
	return out
}

// Outcome is how a game ended.
type Outcome int8

// The outcomes of a game. Abandoned games (nobody died in ten days and nights) and voided
// games (a host fault) are not scored.
const (
	VillageVictory Outcome = iota + 1
	MafiaVictory
	Abandoned
	Voided
)

func (o Outcome) String() string {
	switch o {
	case VillageVictory:
		return "village victory"
	case MafiaVictory:
		return "mafia victory"
	case Abandoned:
		return "abandoned"
	case Voided:
		return "voided"
	}
	return "unfinished"
}

// GameResult is what one game leaves behind, per player of the lineup.
type GameResult struct {
	Seed    uint64
	Outcome Outcome
	Days    int    // days begun, day 0 included
	Roles   []Role // per lineup player
	Faults  []int  // per lineup player: faults handled by the rules' default (host faults excluded)
	Detail  string // why the game was voided
}

// Play plays a tournament: opt.Games games, one after another, every one with all the bots,
// game i seeded with engine.GameSeed(seed, i). It returns the scored table; an error only
// when ctx ends or the engine itself fails.
func Play(ctx context.Context, bots Bots, entrants []engine.Entrant, seed uint64, opt Options, progress engine.Progress) (*engine.Result, error) {
	if len(entrants) == 0 {
		return Score(entrants, NewLineup(nil), nil), nil
	}
	names := make([]string, len(entrants))
	for i, e := range entrants {
		names[i] = e.Name
	}
	lineup := NewLineup(names)
	games := opt.Games
	if games <= 0 {
		games = DefaultGames
	}
	start, err := opt.Batches.Start(games)
	if err != nil {
		return nil, err
	}
	results := make([]GameResult, 0, games)
	if start > 0 {
		if results, err = restore(bots, len(entrants), opt.Batches.Resume.State, start); err != nil {
			return nil, err
		}
	}
	// Games are played one after another (the bots' files carry over), so the fold only
	// reports the checkpoints; its state holds the bots' kept files with the results.
	fold, run := engine.NewFold(ctx, opt.Batches, start, games,
		func(_ int, r GameResult) { results = append(results, r) },
		func() ([]byte, error) { return save(bots, len(entrants), results) },
		func() *engine.Result { return Score(entrants, lineup, results) })
	var playErr error
	for i := start; i < games; i++ {
		o := opt
		o.Game = i
		r, err := lineup.Play(run, bots, engine.GameSeed(seed, i), o)
		if err != nil {
			playErr = fmt.Errorf("mafia game %d: %w", i, err)
			break
		}
		fold.Add(i, r)
		if progress != nil {
			progress(i+1, games)
		}
		if run.Err() != nil {
			break // stopped at this boundary, or a checkpoint failed
		}
	}
	if playErr == nil {
		playErr = ctx.Err()
	}
	if _, err := fold.End(playErr); err != nil {
		return nil, err
	}
	return Score(entrants, lineup, results), nil
}

// sortedNames returns the names in byte order (the players file, Randy's options).
func sortedNames(names []string) []string {
	s := append([]string(nil), names...)
	sort.Strings(s)
	return s
}
