package cron

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"kothd/engine"
	"kothd/engine/mafia"
	"kothd/runner"
	"kothd/store"
)

// mafiaAdapter plugs Let's play Mafia! (codegolf 151341) into the cycle: any-language bots,
// each a directory with an executable `run`, talking through files (the dirfiles
// protocol). Every game is played by all bots, one game after another; Randy fillers (the
// engine's own) bring fewer than six bots up to six.
//
// Options (config.yaml, `options:`):
//
//	parallel: 2   # bots run at once within an action round or a night (default: the
//	              # challenge's concurrency, else 2); never changes the results
type mafiaAdapter struct{}

func init() { register("mafia", mafiaAdapter{}) }

type mafiaOptions struct {
	Parallel int `yaml:"parallel"`
}

func mafiaOpts(env *PlayEnv) (mafiaOptions, error) {
	var o mafiaOptions
	if err := decodeOptions(env, &o); err != nil {
		return o, err
	}
	o.Parallel = firstPositive(o.Parallel, env.Challenge.Concurrency, 2)
	return o, nil
}

// mafiaShims are the interpreter names a language's answers may call through
// `#!/usr/bin/env …` that the bots' PATH would not otherwise find (2018 answers wrote
// `python` for Python 2).
var mafiaShims = map[string][]string{
	"python2": {"python", "python2"},
	"python3": {"python"},
}

// Prepare readies an answer's directory: builds it when its language needs a build, writes
// a `run` that starts the language's run command when the answer has none, installs the
// interpreter shims, and makes `run` and every script with a shebang executable (the
// question's Randy starts `./randy.py`).
func (mafiaAdapter) Prepare(ctx context.Context, env *PlayEnv, sub Submission) ([]Entry, error) {
	lang, ok := env.Config.Languages[sub.Language]
	if !ok {
		return nil, fmt.Errorf("unknown language %q", sub.Language)
	}
	run := filepath.Join(sub.Dir, runner.RunFile)
	if _, err := os.Lstat(run); errors.Is(err, os.ErrNotExist) {
		if len(lang.Run) == 0 {
			return nil, fmt.Errorf("the answer has no `run` file (show it as a code block under a line `run:`)")
		}
		if err := runner.WriteBotFile(sub.Dir, runner.RunFile, []byte("#!/bin/sh\nexec "+shellJoin(lang.Run)+"\n"), 0o755); err != nil {
			return nil, fmt.Errorf("write run: %w", err)
		}
	}
	if len(lang.Build) > 0 {
		l := env.Challenge.Limits
		if log, err := runner.Build(ctx, env.Sandbox, lang, sub.Dir, processLimits(env), l.BuildTimeout.D(runner.DefaultBuildTimeout)); err != nil {
			if errors.Is(err, runner.ErrBuildHost) {
				return nil, &engine.Fault{Outcome: engine.HostFault, Detail: err.Error()}
			}
			return nil, fmt.Errorf("compile error: %w\n%s", err, log)
		}
	}
	if len(lang.Run) > 0 && filepath.IsAbs(lang.Run[0]) {
		shims := map[string]string{}
		for _, n := range mafiaShims[sub.Language] {
			shims[n] = lang.Run[0]
		}
		if err := runner.InstallShims(sub.Dir, shims); err != nil {
			return nil, err
		}
	}
	if err := markScripts(sub.Dir); err != nil {
		return nil, err
	}
	name := strings.TrimSpace(sub.Title)
	if name == "" {
		name = fmt.Sprintf("answer%d", sub.AnswerID)
	}
	return []Entry{{Name: name, AnswerID: sub.AnswerID, Author: sub.Author, Dir: sub.Dir, Run: []string{"./" + runner.RunFile}}}, nil
}

// markScripts makes `run` and every top-level file starting with "#!" executable.
func markScripts(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("list bot files: %w", err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if e.Name() != runner.RunFile {
			head := make([]byte, 2)
			f, err := os.Open(p)
			if err != nil {
				return fmt.Errorf("read %s: %w", e.Name(), err)
			}
			n, _ := f.Read(head)
			f.Close()
			if n < 2 || string(head) != "#!" {
				continue
			}
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		if err := os.Chmod(p, info.Mode().Perm()|0o111); err != nil {
			return fmt.Errorf("make %s executable: %w", e.Name(), err)
		}
	}
	return nil
}

// shellJoin quotes a command for /bin/sh.
func shellJoin(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// Builtins: none. Randy, the question's sample, plays only as the engine's filler.
func (mafiaAdapter) Builtins(ctx context.Context, env *PlayEnv) ([]Entry, error) { return nil, nil }

// validationInputs are what a bot reads in its first runs: a villager's day-0 file, and a
// night prompt (written as if the bot were the cop).
var validationInputs = []string{
	"Rise and shine! Today is day 0.\nNo voting will occur today.\nBe warned: Tonight the mafia will strike.\n",
	"It is night. Who would you like to investigate?\n",
}

// Validate runs the bot, in a scratch copy of its directory, on a day-0 file and a night
// prompt. It rejects a bot whose `run` cannot be started (exit status 126 or 127: missing,
// not executable, or its interpreter not found), that times out, is killed, or writes
// more than the output limit. Other non-zero exits pass: the original ignored the exit
// status, and a shell script's last test may well be false.
func (mafiaAdapter) Validate(ctx context.Context, env *PlayEnv, e Entry) error {
	lineup := mafia.NewLineup([]string{e.Name})
	pool, cleanup, err := mafiaPool(env, []Entry{e}, lineup)
	if err != nil {
		return err
	}
	defer cleanup()
	if err := pool.Setup(0, lineup.Names); err != nil {
		return err
	}
	for _, in := range validationInputs {
		if err := pool.Deliver(0, in); err != nil {
			return err
		}
		_, f := pool.Run(ctx, 0, true)
		switch {
		case f == nil:
			continue
		case f.Outcome == engine.HostFault:
			return f
		case f.Outcome == engine.Crash && !unstartable(pool.LastExit(0)):
			continue
		}
		return fmt.Errorf("%s (from_server: %q)", f.Error(), in)
	}
	return nil
}

// unstartable says whether a shell exit status means the command could not be run.
func unstartable(code int) bool { return code == 126 || code == 127 }

func (mafiaAdapter) Play(ctx context.Context, env *PlayEnv) (*Played, error) {
	o, err := mafiaOpts(env)
	if err != nil {
		return nil, err
	}
	games := firstPositive(env.Games, env.Challenge.Games, mafia.DefaultGames)
	names := make([]string, len(env.Bots))
	for i, b := range env.Bots {
		names[i] = b.Name
	}
	lineup := mafia.NewLineup(names)
	pool, cleanup, err := mafiaPool(env, env.Bots, lineup)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	res, err := mafia.Play(ctx, pool, entrants(env), env.Seed, mafia.Options{Games: games, Parallel: o.Parallel}, env.Progress)
	if err != nil {
		return nil, err
	}
	stats := make([]*runner.Stats, len(env.Bots))
	for i := range stats {
		stats[i] = pool.Stats(i)
	}
	return &Played{Result: res, Stats: stats, Games: games}, nil
}

// mafiaPool copies each bot's directory to a fresh one named after its game name (bots
// learn their own name from their directory, and the files they write must not outlive
// the tournament) and opens a dirfiles pool over the copies. The returned function closes
// the pool and removes the copies.
func mafiaPool(env *PlayEnv, bots []Entry, lineup mafia.Lineup) (*runner.DirPool, func(), error) {
	base := filepath.Join(env.Config.DataDir, "play")
	if err := os.MkdirAll(base, 0o755); err != nil {
		return nil, nil, fmt.Errorf("create play directory: %w", err)
	}
	root, err := os.MkdirTemp(base, env.Challenge.Name+"-")
	if err != nil {
		return nil, nil, fmt.Errorf("create play directory: %w", err)
	}
	cleanup := func() { _ = os.RemoveAll(root) }
	dirs := make([]runner.DirBot, len(bots))
	for i, b := range bots {
		dir := filepath.Join(root, lineup.Names[i])
		if err := runner.CopyBotDir(dir, b.Dir); err != nil {
			cleanup()
			return nil, nil, fmt.Errorf("copy %s for the tournament: %w", b.Name, err)
		}
		dirs[i] = runner.DirBot{Name: b.Name, Dir: dir}
	}
	l := env.Challenge.Limits
	cfg := runner.DirConfig{
		Timeout:   l.CallTimeout.D(10 * time.Second),
		MaxOutput: int64(l.OutputKB) << 10,
		Limits:    processLimits(env),
	}
	pool := runner.NewDirPool(env.Sandbox, cfg, dirs)
	return pool, func() { pool.Close(); cleanup() }, nil
}

// Replay plays game GAME (0 to the run's games − 1) of a past run again, alone, with the
// narrative log: the lineup, the roles, every vote and speech, lynches, the night's choices
// and the outcome. Like Play, it plays in fresh copies of the bots' directories; in the
// run, game GAME saw the files the bots had kept from the games before it.
func (mafiaAdapter) Replay(ctx context.Context, env *PlayEnv, game int, w io.Writer) error {
	o, err := mafiaOpts(env)
	if err != nil {
		return err
	}
	names := make([]string, len(env.Bots))
	for i, b := range env.Bots {
		names[i] = b.Name
	}
	lineup := mafia.NewLineup(names)
	pool, cleanup, err := mafiaPool(env, env.Bots, lineup)
	if err != nil {
		return err
	}
	defer cleanup()
	fmt.Fprintln(w, "Played again alone, in fresh copies of the bots' directories: the roles, day orders, vote shuffles and the filler Randys are the run's; a bot that keeps files across games (in the run it had those of the earlier games) or draws its own randomness may decide differently.")
	r, err := mafia.Replay(ctx, pool, entrants(env), env.Seed, game, mafia.Options{Games: mafiaGames(env), Parallel: o.Parallel},
		func(line string) { fmt.Fprintln(w, line) })
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Outcome: %s after %d days.\n", r.Outcome, r.Days)
	return nil
}

// replayGames is the number of games the run played: counted as Play counts them.
func (mafiaAdapter) replayGames(env *PlayEnv, _ *store.Run) int { return mafiaGames(env) }

func mafiaGames(env *PlayEnv) int {
	return firstPositive(env.Games, env.Challenge.Games, mafia.DefaultGames)
}
