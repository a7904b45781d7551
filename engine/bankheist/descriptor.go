package bankheist

import (
	"context"
	_ "embed"
	"fmt"
	"runtime"
	"strings"

	"github.com/kothd/kothd/engine"
)

// yardstick is `kothd bench`'s yardstick: the original controller's loop, each decision a
// process launched through the shell, one at a time, unsandboxed.
//
//go:embed yardstick.py
var yardstick []byte

// Descriptor is Bank Heist as the host plays it: programs in any language, launched once per
// decision with 31 arguments; the author's eleven example bots are the baselines, played
// in Go. Tournaments run Run.Concurrency at a time (by default one per core: a tournament's
// calls are sequential, so it is the unit that runs side by side), which never changes the
// results.
var Descriptor = &engine.Game{
	Name:        "bankheist",
	Protocol:    engine.Argv,
	Concurrency: runtime.NumCPU(),
	Options:     func() any { return new(Config) }, // the challenge's `options:` block: games_per_tournament
	Baselines:   exampleNames(),
	Play:        play,
	Validate:    validate,
	Replay:      replay,
	Yardstick:   yardstick,
	// Checkpoints at tournament boundaries: a tournament is indivisible (credits, jobs and
	// guards carry from game to game, and its state lives in the bots' answers).
	Batched: true,
	Planned: func(r engine.Run, _ *engine.Result) int { return PlannedGames(contest(r)) },
	Shards:  sharding,
}

func exampleNames() []string {
	out := make([]string, len(Examples))
	for i, e := range Examples {
		out[i] = e.Name
	}
	return out
}

// contest is the contest a run plays.
func contest(r engine.Run) Config {
	c := engine.OptionsOf[Config](r)
	if c.GamesPerTournament <= 0 {
		c.GamesPerTournament = DefaultGamesPerTournament
	}
	c.Bots, c.Seed, c.Tournaments = r.Bots, r.Seed, max(1, r.Games/c.GamesPerTournament)
	return c
}

func play(ctx context.Context, r engine.Run) (*engine.Result, error) {
	cfg := contest(r)
	cfg.Workers, cfg.Progress, cfg.Batches = r.Concurrency, r.Progress, r.Batches
	return Play(ctx, cfg, newDecider(r))
}

// validationArgs are the recorded first call of a tournament (spec §1.3), and a round-2
// call of the same game in which the bot bet 69.
var validationArgs = [2]string{
	"0 1 396 209 88 5846 0 4 240 0 240 1 1 240 0 240 0 0 0 0 0 0.54 0.488 0.425 0.387 0.324 0.8 1.1 1.3 1.65 1.95",
	"0 2 143 57 143 75312 41 4 240 69 240 1 1 240 0 240 0 0 0 0 0 0.54 0.488 0.425 0.387 0.324 0.8 1.1 1.3 1.65 1.95",
}

// validate asks the bot for a bet and a decision, the game's validation decisions: it
// fails a bot that faults on both (an unreadable bet in round 1, no exit-0 output in round
// 2, a crash, a time-out), naming the first fault and how to reproduce it. A bot that
// answers one of them well enters: its faults in a run get the rules' default.
func validate(ctx context.Context, r engine.Run) error {
	d := newDecider(r)
	var first error
	for round, args := range validationArgs {
		_, f := d.Decide(ctx, Call{RunGame: engine.NoGame, Round: round + 1, Args: strings.Fields(args)})
		if f == nil {
			return nil
		}
		if f.Outcome == engine.HostFault {
			return f
		}
		if first == nil {
			first = fmt.Errorf("round %d: %s; reproduce with: %s %s", round+1, f.Error(), r.Launch.Command(0), args)
		}
	}
	return fmt.Errorf("it faulted on every one of its %d decisions in validation; the first: %w", len(validationArgs), first)
}

// replay plays game GAME of a past run again and prints that game's log (bets, decisions,
// the standings after it) with the standings before it. GAME numbers the run's games
// across its tournaments in order (tournament 0's games, then tournament 1's, …). Credits
// carry over within a tournament, so the tournament's earlier games are played again
// first, silently: every bot is launched again for each of those decisions.
func replay(ctx context.Context, r engine.Run, game int, trace func(string)) error {
	trace("Played again with the run's seeds (rabble, bank odds, orders): a bot that draws its own randomness, or keeps files across decisions, may decide differently than in the run, and so change the credits that follow.")
	return Replay(ctx, contest(r), newDecider(r), game, trace)
}

// decider asks a run's bots: built-in bots through their Go strategy, the others through
// the protocol's launcher. Every decision is counted in the bot's accounting.
type decider struct {
	r          engine.Run
	strategies []Strategy // set for built-in bots
}

func newDecider(r engine.Run) *decider {
	d := &decider{r: r, strategies: make([]Strategy, len(r.Bots))}
	for i, b := range r.Bots {
		if b.Baseline {
			d.strategies[i], _ = ExampleStrategy(b.Name)
		}
	}
	return d
}

// decisionInput is how a decision is recorded with a fault: enough to run the bot by hand.
type decisionInput struct {
	Tournament int    `json:"tournament"`
	Game       int    `json:"game"`
	Round      int    `json:"round"`
	Args       string `json:"args"`
}

func (d *decider) Decide(ctx context.Context, c Call) (string, *engine.Fault) {
	input := decisionInput{Tournament: c.Tournament, Game: c.Game, Round: c.Round, Args: strings.Join(c.Args, " ")}
	at := engine.At{Game: c.RunGame, Turn: c.Round}
	var check func(string) *engine.Fault
	if c.Round == 1 {
		check = checkBet
	}
	st := d.strategies[c.Bot]
	if st == nil {
		return d.r.Launch.Launch(ctx, c.Tournament, at, c.Bot, c.Args, input, check)
	}
	ans, f := RunStrategy(st, d.r.Bots[c.Bot].Seed, c)
	if f == nil && check != nil {
		f = check(ans)
	}
	d.r.Fault.Record(at, c.Bot, f, input)
	return ans, f
}

// EndTournament releases tournament i's copies of the bots (engine.Launcher units).
func (d *decider) EndTournament(i int) {
	if d.r.Launch != nil {
		d.r.Launch.EndUnit(i)
	}
}

// checkBet refuses a round-1 answer that is not a bet.
func checkBet(ans string) *engine.Fault {
	if _, ok := ParseBet(ans); ok {
		return nil
	}
	return &engine.Fault{Outcome: engine.BadOutput, Detail: fmt.Sprintf("the bet %q is not an integer", clip(ans, 80))}
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
