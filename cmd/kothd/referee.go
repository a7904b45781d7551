package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/engine/all"
	"github.com/kothd/kothd/engine/referee"
	"github.com/kothd/kothd/runner/protocol"
	"github.com/kothd/kothd/runner/sandbox"
)

// runReferee plays a referee challenge's referee against built-in dummy bots (one that
// echoes, one of each fault) and names every protocol mistake with its offending line. It
// plays no answer and changes nothing.
func runReferee(ctx context.Context, cl *cli, args []string) error {
	fs := cl.flags()
	var c common
	c.register(fs, false)
	games := positive(8)
	fs.Var(&games, "games", "games to play against the dummies (default 8)")
	seed := fs.Uint64("seed", 1, "the run's seed")
	verbose := fs.Bool("v", false, "print every line of the first game")
	pos, err := cl.parse(fs, args)
	if err != nil {
		return err
	}
	cfg, err := loadConfig(c.config)
	if err != nil {
		return err
	}
	ch, err := cfg.Challenge(pos[0])
	if err != nil {
		return err
	}
	g, err := all.Games().Lookup(ch.Engine)
	if err != nil {
		return err
	}
	opts, err := g.DecodeOptions(&ch.Options)
	if err != nil {
		return err
	}
	if _, ok := opts.(engine.HasReferee); !ok {
		return fmt.Errorf("challenge %s: the %s engine has no referee (its rules are Go)", ch.Name, g.Name)
	}
	sb, err := sandbox.NewSandbox(cfg.Sandbox, c.logger(cl.err, slog.LevelWarn))
	if err != nil {
		return err
	}
	env := &protocol.Env{Challenge: ch, Config: cfg, Game: g, Options: opts, Sandbox: sb}
	r := engine.Run{Seed: *seed, Options: opts, Referee: protocol.Referees(env)}
	var trace func(string)
	if *verbose {
		trace = func(s string) { fmt.Fprintln(cl.out, "  "+s) }
	}
	fmt.Fprintf(cl.out, "referee of %s against the dummies %v:\n", ch.Name, referee.Dummies)
	if err := referee.Check(ctx, r, int(games), func(s string) { fmt.Fprintln(cl.out, s) }, trace); err != nil {
		return err
	}
	fmt.Fprintln(cl.out, "the referee finished every game")
	return nil
}
