// Command kothd hosts codegolf King-of-the-Hill challenges: it fetches answers, builds and
// runs the bots in a sandbox, plays tournaments, records results and publishes leaderboards.
//
//	kothd once   [--config F] [--challenge NAME] [--snapshot DIR] [--seed N] [--games N] [--force]
//	kothd daemon [--config F] [--snapshot DIR]
//	kothd status [--config F] [--challenge NAME]
//	kothd record [--config F] DIR
//	kothd replay [--config F] RUN GAME
//	kothd bench  [--config F] --snapshot DIR [--challenge NAME] [--games N]
//
// The CLI is thin: it parses flags, loads the config and calls the packages.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

const usage = `usage: kothd <command> [flags]

commands:
  once     run one full cycle (fetch, build, play, record, publish) and exit
  daemon   run cycles on each challenge's schedule until interrupted
  status   show answers, accepted bots, last fetch and changes per challenge
  record   write a snapshot of the live API's answers to a directory
  replay   play one game of a past run again and print its trace (all five engines; GAME from 0 in play order: Ruins pool games then finals, Bank Heist across tournaments)
  bench    play a challenge on a snapshot in a scratch directory and report games/s
  engines  list the available game engines

Run 'kothd <command> -h' for the command's flags.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	var err error
	switch cmd, args := os.Args[1], os.Args[2:]; cmd {
	case "once":
		err = runOnce(ctx, log, args)
	case "daemon":
		err = runDaemon(ctx, log, args)
	case "status":
		err = runStatus(ctx, log, args)
	case "record":
		err = runRecord(ctx, log, args)
	case "replay":
		err = runReplay(ctx, log, args)
	case "bench":
		err = runBench(ctx, log, args)
	case "engines":
		err = runEngines()
	case "-h", "--help", "help":
		fmt.Print(usage)
	default:
		fmt.Fprintf(os.Stderr, "kothd: unknown command %q\n\n%s", cmd, usage)
		os.Exit(2)
	}
	if err != nil {
		if errors.Is(err, errUsage) {
			os.Exit(2)
		}
		fmt.Fprintf(os.Stderr, "kothd: %v\n", err)
		os.Exit(1)
	}
}

var errUsage = errors.New("usage")
