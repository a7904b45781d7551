package whiteelephant

import (
	"context"
	"fmt"
	"sort"

	"github.com/kothd/kothd/engine"
)

// Replay plays game number index of a run with options opts again, alone, and reports to
// trace the original driver's verbose log of it (every round's turn order, every opening
// and steal, disqualifications) followed by the final scores. The names, turn orders,
// present values and the seeds of the bots' Python random modules are the run's game's;
// a bot that keeps class-level state across games, or draws from entropy of its own, may
// decide differently than it did in the run.
//
// opts.Games is the run's game count (<= 0: one); opts.Concurrency and opts.Progress are
// ignored.
func Replay(ctx context.Context, ex engine.Exchanger, bots []engine.Entrant, opts Options, index int, trace func(string)) error {
	if len(bots) == 0 {
		return fmt.Errorf("white elephant: no bots to play")
	}
	if games := max(opts.Games, 1); index < 0 || index >= games {
		return fmt.Errorf("white elephant: the run has games 0 to %d, not %d", games-1, index)
	}
	if trace == nil {
		trace = func(string) {}
	}
	competitors, excluded := uniqueNames(bots)
	for _, e := range excluded {
		trace(e)
	}
	target := opts.WinningScore
	if target <= 0 {
		target = DefaultWinningScore
	}
	var g *game
	err := engine.Lockstep{Exchanger: gameExchanger{ex, index}, Concurrency: 1}.Run(ctx, 1, func(t *engine.Table) {
		seed := engine.GameSeed(opts.Seed, index)
		g = newGame(t, randDealer{engine.NewRand(seed)}, bots, competitors, target)
		g.onFault = func(bot int, f *engine.Fault, input any) {
			trace(fmt.Sprintf("%s: %s (the engine opens a present instead)", bots[bot].Name, f.Error()))
			if opts.OnFault != nil {
				opts.OnFault(bot, f, input)
			}
		}
		g.trace = trace
		g.run(seed)
	})
	if err != nil {
		return fmt.Errorf("white elephant: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("white elephant: replay interrupted: %w", err)
	}
	if g.void != "" {
		trace("The game was voided (not the bots' fault): " + g.void)
		return nil
	}
	trace(fmt.Sprintf("Final scores after %d rounds (%d abandoned after a disqualification):", g.played, g.voided))
	order := append([]int(nil), g.members...)
	sort.SliceStable(order, func(i, j int) bool { return g.score[order[i]] > g.score[order[j]] })
	for i, b := range order {
		line := fmt.Sprintf("%2d. %-20s%7.3f", i+1, bots[b].Name, g.score[b])
		if g.dq[b] != "" {
			line += " (disqualified: " + g.dq[b] + ")"
		}
		trace(line)
	}
	return nil
}

// gameExchanger numbers a replayed game's calls as the run numbered them, so the bots'
// processes keep its state under the same game index.
type gameExchanger struct {
	ex   engine.Exchanger
	game int
}

func (e gameExchanger) Exchange(ctx context.Context, calls []engine.Call) []engine.Reply {
	shifted := make([]engine.Call, len(calls))
	for i, c := range calls {
		c.Game = e.game
		shifted[i] = c
	}
	return e.ex.Exchange(ctx, shifted)
}
