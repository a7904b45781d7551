// Command kothd hosts codegolf King-of-the-Hill challenges: it fetches answers, builds and
// runs the bots in a sandbox, plays tournaments, records results and publishes leaderboards.
// Run `kothd -h` for the commands and `kothd COMMAND -h` for one command's flags.
//
// The CLI is thin: it parses flags, loads the config and calls the packages.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
)

// command is one subcommand: its positional arguments as shown in usage, what it does,
// and how to run it.
type command struct {
	name    string
	args    string // positional arguments, e.g. "RUN GAME"
	summary string
	run     func(ctx context.Context, cl *cli, args []string) error
}

var commands = []command{
	{"once", "", "run one full cycle (fetch, build, play, record, publish) and exit", runOnce},
	{"daemon", "", "run cycles on each challenge's schedule until interrupted", runDaemon},
	{"status", "", "per challenge: last run, next run, last publication, answers entered and not, changes", runStatus},
	{"check", "CHALLENGE ANSWER_ID", "fetch one answer, build and validate it, and print what its author needs (plays nothing)", runCheck},
	{"referee", "CHALLENGE", "play a referee challenge's referee against dummy bots (an echo, each fault) and name each protocol mistake with its line", runReferee},
	{"record", "DIR", "write a snapshot of the live API's answers to DIR", runRecord},
	{"replay", "RUN GAME", "play game GAME (from 0, in play order) of run RUN again and print its trace", runReplay},
	{"bench", "[CHALLENGE...]", "play challenges (\"all\": every one) in a scratch directory and report games/s, decisions/s, CPU, memory and the yardstick", runBench},
	{"backup", "FILE", "write a consistent copy of the database to FILE, also while kothd runs", runBackup},
	{"worker", "", "play shards of a cluster's runs (--nats URL --data DIR) until interrupted; see docs/cluster.md", runWorker},
	{"engines", "", "list the game engines this build has", runEngines},
	{"version", "", "print kothd's version and source revision", runVersion},
}

// cli is where a command writes: stdout for results, stderr for logs and errors.
type cli struct {
	out, err io.Writer
	cmd      command // the command running
}

func main() {
	ctx, stop := stopContext()
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run runs the command line and returns the exit status: 0 for success and for -h, 2 for
// a usage mistake, 1 for a failure.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cl := &cli{out: stdout, err: stderr}
	if len(args) == 0 {
		fmt.Fprint(stderr, mainUsage())
		return 2
	}
	name, rest := args[0], args[1:]
	switch name {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, mainUsage())
		return 0
	}
	for _, c := range commands {
		if c.name != name {
			continue
		}
		cl.cmd = c
		err := c.run(ctx, cl, rest)
		if stoppedOnRequest(ctx, err, stderr) {
			return 0
		}
		var verdict exitStatus
		switch {
		case errors.As(err, &verdict):
			return int(verdict)
		case err == nil, errors.Is(err, errHelp):
			return 0
		case errors.Is(err, errUsage):
			fmt.Fprintf(stderr, "kothd %s: %v\nRun 'kothd %s -h' for usage.\n", name, err, name)
			return 2
		default:
			fmt.Fprintf(stderr, "kothd %s: %v\n", name, err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "kothd: unknown command %q\n\n%s", name, mainUsage())
	return 2
}

// exitStatus is a verdict a command reports through its exit status that is not a
// failure to run (status's health: 1 degraded, 2 failing); run prints nothing more.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

func mainUsage() string {
	s := "usage: kothd COMMAND [flags] [arguments]\n\ncommands:\n"
	for _, c := range commands {
		s += fmt.Sprintf("  %-8s %s\n", c.name, c.summary)
	}
	return s + "\nFlags may come before or after the arguments. Run 'kothd COMMAND -h' for a command's flags.\n"
}
