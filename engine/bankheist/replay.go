package bankheist

import (
	"context"
	"fmt"
	"strings"

	"github.com/kothd/kothd/engine"
)

// Locate maps a contest-wide game number (the games of tournament 0, then those of
// tournament 1, …: the numbering of PlannedGames) to a tournament and the game within it.
// cfg.Tournaments, when positive, bounds the search.
func Locate(cfg Config, game int) (tournament, within int, err error) {
	if game < 0 {
		return 0, 0, fmt.Errorf("bankheist: no game %d", game)
	}
	n := cfg.GamesPerTournament
	if n <= 0 {
		n = DefaultGamesPerTournament
	}
	start := 0
	for i := 0; cfg.Tournaments <= 0 || i < cfg.Tournaments; i++ {
		g := gamesIn(engine.GameSeed(cfg.Seed, i), n)
		if game < start+g {
			return i, game - start, nil
		}
		start += g
	}
	return 0, 0, fmt.Errorf("bankheist: the contest has games 0 to %d, not %d", start-1, game)
}

// Replay plays game number game of the contest cfg describes (numbered as by Locate) again
// and reports its log (spec §2.11) to trace, preceded by the standings before it. Credits,
// jobs, bank accounts and guards carry over from game to game within a tournament, so the
// tournament's earlier games are played again first, silently, with the same decider:
// every bot is asked again for every one of those decisions. cfg.Workers, cfg.Progress and
// cfg.GameLog are ignored.
func Replay(ctx context.Context, cfg Config, d Decider, game int, trace func(string)) error {
	ti, g, err := Locate(cfg, game)
	if err != nil {
		return err
	}
	if trace == nil {
		trace = func(string) {}
	}
	n := cfg.GamesPerTournament
	if n <= 0 {
		n = DefaultGamesPerTournament
	}
	names := make([]string, len(cfg.Bots))
	for i, b := range cfg.Bots {
		names[i] = b.Name
	}
	t := newTournament(ti, game-g, engine.GameSeed(cfg.Seed, ti), names, n, d)
	if g > 0 {
		trace(fmt.Sprintf("Game %d of the contest is game %d of tournament %d (%d games); games 0 to %d of that tournament were played again first, silently, because credits carry over.",
			game, g, ti, t.games, g-1))
	} else {
		trace(fmt.Sprintf("Game %d of the contest is game 0 of tournament %d (%d games).", game, ti, t.games))
	}
	for i := range g {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("tournament %d, game %d: %w", ti, i, err)
		}
		t.play(ctx, i)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("tournament %d, game %d: %w", ti, g, err)
	}
	trace(fmt.Sprintf("Standings before game %d:", g))
	for i, b := range t.order {
		p := t.bots[b]
		job := "unemployed"
		if p.employed {
			job = fmt.Sprintf("employed at %d", p.paycheck)
		}
		trace(fmt.Sprintf("%d. %s: %d credits, %s, accounts %v", i, names[b], p.credits, job, p.account))
	}
	t.hostFault = ""
	t.log = func(_, _ int, text string) {
		for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
			trace(line)
		}
	}
	if !t.play(ctx, g) {
		trace("The game was voided (not the bots' fault): " + t.hostFault)
	}
	return nil
}
