package dirfiles

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/runner/protocol"
	"github.com/kothd/kothd/runner/sandbox"
)

// Protocol plays games of the dirfiles protocol: any-language bots, each a
// directory with an executable `run`, run once per decision and talking through files.
type Protocol struct{}

// interpreterShims are the interpreter names a language's answers may call through
// `#!/usr/bin/env …` that the bots' PATH would not otherwise find (2018 answers wrote
// `python` for Python 2).
var interpreterShims = map[string][]string{
	"python2": {"python", "python2"},
	"python3": {"python"},
}

// Prepare readies an answer's directory: builds it when its language needs a build, writes
// a `run` that starts the language's run command when the answer has none, installs the
// interpreter shims, and makes `run` and every script with a shebang executable (Mafia's
// Randy starts `./randy.py`).
// ReadOnlyDirs: a bot keeps its files in its directory between runs (the protocol's
// from_server and to_server are files there).
func (Protocol) ReadOnlyDirs() bool { return false }

func (Protocol) Prepare(ctx context.Context, env *protocol.Env, sub protocol.Submission) ([]engine.Bot, error) {
	lang, ok := env.Config.Languages[sub.Language]
	if !ok {
		return nil, fmt.Errorf("unknown language %q", sub.Language)
	}
	run := filepath.Join(sub.Dir, RunFile)
	if _, err := os.Lstat(run); errors.Is(err, os.ErrNotExist) {
		if len(lang.Run) == 0 {
			return nil, fmt.Errorf("the answer has no `run` file (show it as a code block under a line `run:`)")
		}
		if err := sandbox.WriteBotFile(sub.Dir, RunFile, []byte("#!/bin/sh\nexec "+shellJoin(lang.Run)+"\n"), 0o755); err != nil {
			return nil, fmt.Errorf("write run: %w", err)
		}
	}
	if err := protocol.BuildAnswer(ctx, env, sub); err != nil {
		return nil, err
	}
	if len(lang.Run) > 0 && filepath.IsAbs(lang.Run[0]) {
		shims := map[string]string{}
		for _, n := range interpreterShims[sub.Language] {
			shims[n] = lang.Run[0]
		}
		if err := InstallShims(sub.Dir, shims); err != nil {
			return nil, err
		}
	}
	if err := markScripts(sub.Dir); err != nil {
		return nil, err
	}
	return []engine.Bot{{
		Entrant:  engine.Entrant{Name: protocol.AnswerName(sub), Author: sub.Author, Heading: sub.Heading},
		AnswerID: sub.AnswerID, Dir: sub.Dir, Run: []string{"./" + RunFile},
	}}, nil
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
		if e.Name() != RunFile {
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

// Builtins are the game's baselines, which its engine plays itself.
func (Protocol) Builtins(ctx context.Context, env *protocol.Env) ([]engine.Bot, error) {
	return protocol.EngineBuiltins(env), nil
}

// Open runs the bots in their directories (scratch copies named as the game wants).
func (Protocol) Open(env *protocol.Env, r *engine.Run) ([]*protocol.Stats, func(), error) {
	return open(env, r, true)
}

// open is Open, benching bots (limits.fault_streak, limits.run_budget) in a run but not
// in a validation, which counts every decision itself.
func open(env *protocol.Env, r *engine.Run, bench bool) ([]*protocol.Stats, func(), error) {
	l := env.Challenge.Limits
	cfg := DirConfig{
		Timeout:   l.CallTimeout.D(10 * time.Second),
		MaxOutput: int64(l.OutputKB) << 10,
		Limits:    protocol.Limits(env),
		Shares:    env.Shares,
	}
	if bench {
		cfg.FaultStreak, cfg.Budget = protocol.FaultStreak(l.FaultStreak), l.RunBudget.D(0)
	}
	pool := NewDirPool(env.Sandbox, cfg, env.Bots)
	r.Files = pool
	stats := make([]*protocol.Stats, len(env.Bots))
	for i := range stats {
		stats[i] = pool.Stats(i)
	}
	return stats, pool.Close, nil
}

// Validate runs the game's validation (its first decisions) with the bot alone, in its
// scratch copy.
func (a Protocol) Validate(ctx context.Context, env *protocol.Env, e engine.Bot) error {
	one := *env
	one.Bots = []engine.Bot{e}
	r := protocol.ValidationRun(&one)
	_, closeFn, err := open(&one, &r, false)
	if err != nil {
		return err
	}
	defer closeFn()
	return env.Game.Validate(ctx, r)
}
