package mafia

import (
	"encoding/json"
	"fmt"

	"github.com/kothd/kothd/engine"
)

// A checkpoint of a tournament holds the results of its games so far and the files each
// bot kept in its directory (the rules let a bot keep notes across games): a resumed
// tournament gives them back before the bots' first run, so every bot finds its directory
// as it left it. Bots reached through a DirBots that cannot keep files (tests' stand-ins)
// are resumed with what they have.

type saved struct {
	Games []GameResult `json:"games"`
	Kept  [][]byte     `json:"kept,omitempty"` // per bot: engine.DirKeeper.Keep
}

// save encodes the tournament after its games results, with the bots' kept files. A bot
// that keeps more than a checkpoint holds skips this checkpoint (engine.ErrNoCheckpoint).
func save(bots Bots, n int, results []GameResult) ([]byte, error) {
	s := saved{Games: results}
	if k, ok := bots.(engine.DirKeeper); ok {
		for b := range n {
			kept, err := k.Keep(b)
			if err != nil {
				return nil, fmt.Errorf("mafia: keep the files of bot %d: %w", b, err)
			}
			s.Kept = append(s.Kept, kept)
		}
	}
	return json.Marshal(s)
}

// restore reads a checkpoint after done games of n bots and gives the bots back their
// files.
func restore(bots Bots, n int, state []byte, done int) ([]GameResult, error) {
	var s saved
	if err := json.Unmarshal(state, &s); err != nil {
		return nil, fmt.Errorf("mafia: checkpoint unreadable: %w", err)
	}
	if len(s.Games) != done {
		return nil, fmt.Errorf("mafia: checkpoint holds %d games, its game count says %d", len(s.Games), done)
	}
	k, ok := bots.(engine.DirKeeper)
	switch {
	case len(s.Kept) == 0:
	case len(s.Kept) != n:
		return nil, fmt.Errorf("mafia: checkpoint holds the files of %d bots, the tournament has %d", len(s.Kept), n)
	case !ok:
		return nil, fmt.Errorf("mafia: checkpoint holds the bots' files, and their protocol cannot give them back")
	default:
		for b, kept := range s.Kept {
			if err := k.Restore(b, kept); err != nil {
				return nil, fmt.Errorf("mafia: give bot %d its files back: %w", b, err)
			}
		}
	}
	return s.Games, nil
}
