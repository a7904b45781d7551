package mafia

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/kothd/kothd/engine"
)

// yardstick is `kothd bench`'s yardstick: the original controller's loop, each bot's `run`
// launched through the shell in its own directory, one at a time, unsandboxed.
//
//go:embed yardstick.py
var yardstick []byte

// Descriptor is Let's play Mafia! as the host plays it: programs in any language, each a
// directory with an executable `run`, talking through files. Every game is played by all
// bots, one game after another; Randy fillers (the engine's own) bring fewer than six bots
// up to six. Run.Concurrency bots run at once within an action round or a night, which
// never changes the results.
var Descriptor = &engine.Game{
	Name:        "mafia",
	Protocol:    engine.DirFiles,
	Games:       DefaultGames,
	Concurrency: 2,
	Play:        play,
	Validate:    validate,
	Replay:      replay,
	Yardstick:   yardstick,
	// Checkpoints after any game, holding each bot's kept files (engine.DirKeeper).
	Batched: true,
	// Played in shards of whole games, one after another (shard.go).
	Shards: sharding,
	// Bots learn their own name from their directory: it is their game name.
	DirNames: func(bots []engine.Entrant) []string { return NewLineup(names(bots)).Names[:len(bots)] },
}

func names(bots []engine.Entrant) []string {
	out := make([]string, len(bots))
	for i, b := range bots {
		out[i] = b.Name
	}
	return out
}

func play(ctx context.Context, r engine.Run) (*engine.Result, error) {
	return Play(ctx, r.Files, r.Bots, r.Seed, Options{Games: r.Games, Parallel: r.Concurrency, Batches: r.Batches}, r.Progress)
}

// validationInputs are what a bot reads in its first runs: a villager's day-0 file, and a
// night prompt (written as if the bot were the cop).
var validationInputs = []string{
	"Rise and shine! Today is day 0.\nNo voting will occur today.\nBe warned: Tonight the mafia will strike.\n",
	"It is night. Who would you like to investigate?\n",
}

// validate runs the bot on a day-0 file and a night prompt, the game's validation
// decisions. It fails a bot that faults on both: its `run` cannot be started (exit status
// 126 or 127: missing, not executable, or its interpreter not found), it times out, is
// killed, or writes more than the output limit; the reason names the first fault and its
// input. Other non-zero exits pass: the original ignored the exit status, and a shell
// script's last test may well be false. A bot that answers one of them enters.
func validate(ctx context.Context, r engine.Run) error {
	if err := r.Files.Setup(engine.NoGame, 0, NewLineup(names(r.Bots)).Names); err != nil {
		return err
	}
	var first error
	for turn, in := range validationInputs {
		if err := r.Files.Deliver(0, in); err != nil {
			return err
		}
		_, f := r.Files.Run(ctx, engine.At{Game: engine.NoGame, Turn: turn}, 0, true)
		switch {
		case f == nil:
			return nil
		case f.Outcome == engine.HostFault:
			return f
		case f.Outcome == engine.Crash && !unstartable(r.Files.LastExit(0)):
			return nil
		}
		if first == nil {
			first = fmt.Errorf("%s (from_server: %q)", f.Error(), in)
		}
	}
	return fmt.Errorf("it faulted on every one of its %d decisions in validation; the first: %w", len(validationInputs), first)
}

// unstartable says whether a shell exit status means the command could not be run.
func unstartable(code int) bool { return code == 126 || code == 127 }

// replay plays game GAME (0 to the run's games − 1) of a past run again, alone, with the
// narrative log: the lineup, the roles, every vote and speech, lynches, the night's
// choices and the outcome. In the run, game GAME saw the files the bots had kept from the
// games before it.
func replay(ctx context.Context, r engine.Run, game int, trace func(string)) error {
	trace("Played again alone, in fresh copies of the bots' directories: the roles, day orders, vote shuffles and the filler Randys are the run's; a bot that keeps files across games (in the run it had those of the earlier games) or draws its own randomness may decide differently.")
	res, err := Replay(ctx, r.Files, r.Bots, r.Seed, game, Options{Games: r.Games, Parallel: r.Concurrency}, trace)
	if err != nil {
		return err
	}
	trace(fmt.Sprintf("Outcome: %s after %d days.", res.Outcome, res.Days))
	return nil
}
