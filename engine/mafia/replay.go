package mafia

import (
	"context"
	"fmt"

	"github.com/kothd/kothd/engine"
)

// Replay plays game number game of a tournament with master seed seed again, alone, and
// reports its narrative log (spec §2.9) to trace: the lineup with the game names, the
// roles, every day's votes and speeches, lynches, the night's choices and the outcome. The
// roles, day orders, vote shuffles and the Randy fillers' draws come from the game's seed
// as in the run. The bots start from the directories bots gives them: in the run they had
// the files they kept during games 0 to game−1, so a bot that keeps files across games
// (or draws its own randomness) may decide differently. opt.Games bounds game (0: the
// default); opt.Log is replaced by trace.
func Replay(ctx context.Context, bots Bots, entrants []engine.Entrant, seed uint64, game int, opt Options, trace func(string)) (GameResult, error) {
	games := opt.Games
	if games <= 0 {
		games = DefaultGames
	}
	if game < 0 || game >= games {
		return GameResult{}, fmt.Errorf("mafia: the tournament has games 0 to %d, not %d", games-1, game)
	}
	if len(entrants) == 0 {
		return GameResult{}, fmt.Errorf("mafia: no bots to play")
	}
	if trace == nil {
		trace = func(string) {}
	}
	names := make([]string, len(entrants))
	for i, e := range entrants {
		names[i] = e.Name
	}
	lineup := NewLineup(names)
	for i, n := range lineup.Names {
		if i < lineup.Bots {
			trace(fmt.Sprintf("player %s: %s", n, entrants[i].Name))
		} else {
			trace(fmt.Sprintf("player %s: the filler Randy (played by the engine)", n))
		}
	}
	opt.Log, opt.Game, opt.Batches = trace, game, nil
	r, err := lineup.Play(ctx, bots, engine.GameSeed(seed, game), opt)
	if err != nil {
		return GameResult{}, fmt.Errorf("mafia game %d: %w", game, err)
	}
	return r, nil
}
