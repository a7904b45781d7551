package cron

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"kothd/engine"
	"kothd/engine/bankheist"
	"kothd/runner"
	"kothd/store"
)

// bankheistAdapter plugs Bank Heist (codegolf 115303) into the cycle: any-language bots
// built from their answer and launched once per decision with 31 arguments (the argv
// protocol).
//
// Budget: the run's games (PlayEnv.Games, else the challenge's `games`) is a number of
// games; the contest plays max(1, games / N) tournaments of N to 1.1 N games each, N being
// the option games_per_tournament (default 1000, the question's). With no budget it plays
// one tournament. Options (config.yaml, `options:`):
//
//	games_per_tournament: 1000  # N
//	workers: 2                  # tournaments played at once (default: the challenge's
//	                            # concurrency, else 2); never changes the results
//	sandbox_per_launch: false   # true: build a sandbox for every decision (runner.RunArgv)
//	                            # instead of one launcher per bot (runner.Launcher); slower,
//	                            # same results
type bankheistAdapter struct{}

func init() { register("bankheist", bankheistAdapter{}) }

type bankheistOptions struct {
	GamesPerTournament int  `yaml:"games_per_tournament"`
	Workers            int  `yaml:"workers"`
	SandboxPerLaunch   bool `yaml:"sandbox_per_launch"`
}

func bankheistOpts(env *PlayEnv) (bankheistOptions, error) {
	var o bankheistOptions
	if err := decodeOptions(env, &o); err != nil {
		return o, err
	}
	o.GamesPerTournament = firstPositive(o.GamesPerTournament, bankheist.DefaultGamesPerTournament)
	o.Workers = firstPositive(o.Workers, env.Challenge.Concurrency, 2)
	return o, nil
}

// Prepare builds the answer in its directory with its language's build command; the bot
// runs with the language's run command.
func (bankheistAdapter) Prepare(ctx context.Context, env *PlayEnv, sub Submission) ([]Entry, error) {
	lang, ok := env.Config.Languages[sub.Language]
	if !ok {
		return nil, fmt.Errorf("unknown language %q", sub.Language)
	}
	if len(lang.Run) == 0 {
		return nil, fmt.Errorf("language %q has no run command in the host's configuration", sub.Language)
	}
	l := env.Challenge.Limits
	if log, err := runner.Build(ctx, env.Sandbox, lang, sub.Dir, processLimits(env), l.BuildTimeout.D(runner.DefaultBuildTimeout)); err != nil {
		if errors.Is(err, runner.ErrBuildHost) {
			return nil, &engine.Fault{Outcome: engine.HostFault, Detail: err.Error()}
		}
		return nil, fmt.Errorf("compile error: %w\n%s", err, log)
	}
	name := strings.TrimSpace(sub.Title)
	if name == "" {
		name = fmt.Sprintf("answer%d", sub.AnswerID)
	}
	return []Entry{{Name: name, AnswerID: sub.AnswerID, Author: sub.Author, Dir: sub.Dir, Run: lang.Run}}, nil
}

// Builtins are the challenge author's eleven example bots (spec §5.3), played by Go
// re-implementations: entries without a Run command.
func (bankheistAdapter) Builtins(ctx context.Context, env *PlayEnv) ([]Entry, error) {
	if !env.Challenge.Baselines {
		return nil, nil
	}
	var out []Entry
	for _, e := range bankheist.Examples {
		out = append(out, Entry{Name: e.Name, Baseline: true})
	}
	return out, nil
}

// validationArgs are the recorded first call of a tournament (spec §1.3), and a round-2
// call of the same game in which the bot bet 69.
var validationArgs = [2]string{
	"0 1 396 209 88 5846 0 4 240 0 240 1 1 240 0 240 0 0 0 0 0 0.54 0.488 0.425 0.387 0.324 0.8 1.1 1.3 1.65 1.95",
	"0 2 143 57 143 75312 41 4 240 69 240 1 1 240 0 240 0 0 0 0 0 0.54 0.488 0.425 0.387 0.324 0.8 1.1 1.3 1.65 1.95",
}

// Validate asks the bot for a bet and a decision; it must answer both (a readable bet in
// round 1, any exit-0 output in round 2).
func (bankheistAdapter) Validate(ctx context.Context, env *PlayEnv, e Entry) error {
	d := newArgvDecider(env, []Entry{e})
	defer d.close()
	for round, args := range validationArgs {
		c := bankheist.Call{Round: round + 1, Args: strings.Fields(args)}
		_, f := d.Decide(ctx, c)
		if f == nil {
			continue
		}
		if f.Outcome == engine.HostFault {
			return f
		}
		return fmt.Errorf("round %d: %s; reproduce with: %s %s", round+1, f.Error(), strings.Join(e.Run, " "), args)
	}
	return nil
}

func (bankheistAdapter) Play(ctx context.Context, env *PlayEnv) (*Played, error) {
	o, err := bankheistOpts(env)
	if err != nil {
		return nil, err
	}
	cfg := bankheist.Config{
		Bots:               entrants(env),
		Seed:               env.Seed,
		Tournaments:        max(1, firstPositive(env.Games, env.Challenge.Games)/o.GamesPerTournament),
		GamesPerTournament: o.GamesPerTournament,
		Workers:            o.Workers,
		Progress:           env.Progress,
	}
	d := newArgvDecider(env, env.Bots)
	defer d.close()
	res, err := bankheist.Play(ctx, cfg, d)
	if err != nil {
		return nil, err
	}
	return &Played{Result: res, Stats: d.stats, Games: bankheist.PlannedGames(cfg)}, nil
}

// argvDecider launches each bot's command once per decision (through the bot's
// launcher: one sandbox per bot for the whole run), or plays a built-in bot's Go
// strategy, and keeps every bot's fault accounting. close stops the launchers.
type argvDecider struct {
	sb         runner.Sandbox
	bots       []Entry
	strategies []bankheist.Strategy // set for built-in bots
	launchers  []*runner.Launcher   // set for bots with a run command, unless sandbox_per_launch
	limits     runner.Limits
	timeout    time.Duration
	stats      []*runner.Stats
}

func newArgvDecider(env *PlayEnv, bots []Entry) *argvDecider {
	d := &argvDecider{sb: env.Sandbox, bots: bots, limits: processLimits(env),
		timeout: env.Challenge.Limits.CallTimeout.D(2 * time.Second)}
	o, _ := bankheistOpts(env) // an invalid option has already failed Play
	for _, b := range bots {
		var st bankheist.Strategy
		if b.Baseline && len(b.Run) == 0 {
			st, _ = bankheist.ExampleStrategy(b.Name)
		}
		var l *runner.Launcher
		if st == nil && len(b.Run) > 0 && !o.SandboxPerLaunch {
			l = runner.NewLauncher(d.sb, d.spec(b))
		}
		d.strategies = append(d.strategies, st)
		d.launchers = append(d.launchers, l)
		d.stats = append(d.stats, runner.NewStats())
	}
	return d
}

func (d *argvDecider) spec(b Entry) runner.ProcSpec {
	return runner.ProcSpec{Dir: b.Dir, Argv: b.Run, Limits: d.limits}
}

func (d *argvDecider) close() {
	for _, l := range d.launchers {
		if l != nil {
			l.Close()
		}
	}
}

// argvInput is how a decision is recorded with a fault: enough to run the bot by hand.
type argvInput struct {
	Tournament int    `json:"tournament"`
	Game       int    `json:"game"`
	Round      int    `json:"round"`
	Args       string `json:"args"`
}

func (d *argvDecider) Decide(ctx context.Context, c bankheist.Call) (string, *engine.Fault) {
	b := d.bots[c.Bot]
	var ans string
	var f *engine.Fault
	switch {
	case d.strategies[c.Bot] != nil:
		ans, f = bankheist.RunStrategy(d.strategies[c.Bot], b.Seed, c)
	case len(b.Run) == 0:
		f = &engine.Fault{Outcome: engine.HostFault, Detail: fmt.Sprintf("bot %s has no run command", b.Name)}
	case d.launchers[c.Bot] != nil:
		ans, f = d.launchers[c.Bot].Run(ctx, c.Args, d.timeout)
	default:
		ans, f = runner.RunArgv(ctx, d.sb, d.spec(b), c.Args, d.timeout)
	}
	if f == nil && c.Round == 1 {
		if _, ok := bankheist.ParseBet(ans); !ok {
			f = &engine.Fault{Outcome: engine.BadOutput, Detail: fmt.Sprintf("the bet %q is not an integer", clipAnswer(ans, 80))}
		}
	}
	d.stats[c.Bot].Record(f, argvInput{Tournament: c.Tournament, Game: c.Game, Round: c.Round, Args: strings.Join(c.Args, " ")})
	return ans, f
}

func clipAnswer(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Replay plays game GAME of a past run again and prints that game's log (bets, decisions,
// the standings after it) with the standings before it. GAME numbers the run's games
// across its tournaments in order (tournament 0's games, then tournament 1's, …), as the
// run's game count does. Credits carry over within a tournament, so the tournament's
// earlier games are played again first, silently: every bot is launched again for each of
// those decisions (up to a whole tournament's worth). The bots run in copies of their
// directories.
func (bankheistAdapter) Replay(ctx context.Context, env *PlayEnv, game int, w io.Writer) error {
	o, err := bankheistOpts(env)
	if err != nil {
		return err
	}
	env, cleanup, err := replayEnv(env)
	if err != nil {
		return err
	}
	defer cleanup()
	for _, b := range env.Bots {
		if len(b.Run) == 0 && b.Dir != "" {
			return fmt.Errorf("bot %s: the run recorded no command for it", b.Name)
		}
	}
	d := newArgvDecider(env, env.Bots)
	defer d.close()
	fmt.Fprintln(w, "Played again with the run's seeds (rabble, bank odds, orders): a bot that draws its own randomness, or keeps files across decisions, may decide differently than in the run, and so change the credits that follow.")
	return bankheist.Replay(ctx, bankheistConfig(env, o), d, game, func(line string) { fmt.Fprintln(w, line) })
}

// replayGames is the number of games the run played (PlannedGames of its contest).
func (bankheistAdapter) replayGames(env *PlayEnv, _ *store.Run) int {
	o, err := bankheistOpts(env)
	if err != nil {
		return 0
	}
	return bankheist.PlannedGames(bankheistConfig(env, o))
}

// bankheistConfig is the contest Play plays for env (the budget env.Games, else the
// challenge's games, in tournaments of games_per_tournament).
func bankheistConfig(env *PlayEnv, o bankheistOptions) bankheist.Config {
	return bankheist.Config{
		Bots:               entrants(env),
		Seed:               env.Seed,
		Tournaments:        max(1, firstPositive(env.Games, env.Challenge.Games)/o.GamesPerTournament),
		GamesPerTournament: o.GamesPerTournament,
	}
}
