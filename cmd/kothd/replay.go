package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strconv"
)

// runReplay plays one game of a past run again and prints its trace.
func runReplay(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	var c common
	c.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: kothd replay [--config F] RUN GAME")
		return errUsage
	}
	run, err1 := strconv.ParseInt(fs.Arg(0), 10, 64)
	game, err2 := strconv.Atoi(fs.Arg(1))
	if err1 != nil || err2 != nil {
		return fmt.Errorf("replay: RUN and GAME are numbers (see the leaderboard's run number)")
	}
	cy, closeFn, err := c.cycle(ctx, log, os.Stdout)
	if err != nil {
		return err
	}
	defer closeFn()
	return cy.Replay(ctx, run, game, os.Stdout)
}
