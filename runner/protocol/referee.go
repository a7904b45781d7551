package protocol

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/runner/sandbox"
)

// RefereeProgram is a referee resolved: its directory on this machine and the command
// that starts it there.
type RefereeProgram struct {
	Dir string
	Run []string
}

// ResolveReferee is env's referee (nil for a game whose rules are Go): its directory
// resolved against the config file, its command from the languages table.
func ResolveReferee(env *Env) (*RefereeProgram, error) {
	if env.Referee != nil {
		return env.Referee, nil
	}
	hr, ok := env.Options.(engine.HasReferee)
	if !ok {
		return nil, nil
	}
	rs := &referees{env: env, spec: hr.RefereeProgram()}
	cmd, err := rs.command()
	if err != nil {
		return nil, err
	}
	return &RefereeProgram{Dir: env.Config.Resolve(rs.spec.Dir), Run: cmd}, nil
}

// Referees is how the host starts a challenge's referee (engine.HasReferee), or nil for a
// game whose rules are its own Go: one sandboxed process per game, in a fresh copy of the
// referee's directory shown to it read-only. The referee is the host's code, but a bug in
// it must not take down the daemon, read the bots' files or the host's secrets: it runs
// in the bots' sandbox (a scrubbed environment, no network, its own uid and cgroup, the
// challenge's limits), sees no directory but its own, and reaches the bots only through
// kothd's relay.
func Referees(env *Env) engine.Referees {
	hr, ok := env.Options.(engine.HasReferee)
	if !ok {
		return nil
	}
	return &referees{env: env, spec: hr.RefereeProgram()}
}

type referees struct {
	env  *Env
	spec engine.RefereeSpec
}

// Command is the referee's command line: the language's run command, its file replaced by
// the referee's.
func (rs *referees) command() ([]string, error) {
	lang, ok := rs.env.Config.Languages[rs.spec.Language]
	if !ok {
		return nil, fmt.Errorf("the referee's language %q is not in the host's languages table", rs.spec.Language)
	}
	if len(lang.Run) == 0 {
		return nil, fmt.Errorf("the referee's language %q has no run command", rs.spec.Language)
	}
	if len(lang.Build) > 0 {
		return nil, fmt.Errorf("the referee's language %q has a build step: a referee runs as it is in its directory (an interpreted language, or a language whose run command starts a prebuilt program)", rs.spec.Language)
	}
	cmd := append([]string(nil), lang.Run...)
	if rs.spec.File != "" && lang.File != "" {
		for i, a := range cmd {
			if a == lang.File {
				cmd[i] = rs.spec.File
			}
		}
	}
	return cmd, nil
}

func (rs *referees) Start(ctx context.Context) (engine.Referee, error) {
	prog, err := ResolveReferee(rs.env)
	if err != nil {
		return nil, err
	}
	cmd, src := prog.Run, prog.Dir
	if st, err := os.Stat(src); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("the referee's directory %s: not a directory (options.referee.dir, relative to the config file)", src)
	}
	base := filepath.Join(rs.env.Config.DataDir, "work")
	if err := os.MkdirAll(base, 0o755); err != nil {
		return nil, fmt.Errorf("referee: %w", err)
	}
	dir, err := os.MkdirTemp(base, "referee-")
	if err != nil {
		return nil, fmt.Errorf("referee: %w", err)
	}
	if err := sandbox.CopyBotDir(dir, src); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("referee: %w", err)
	}
	lim := Limits(rs.env)
	lim.OutputBytes = max(lim.OutputBytes, 1<<20) // a result line carries the game's log
	p, err := sandbox.StartSyncLineProc(ctx, rs.env.Sandbox, sandbox.ProcSpec{Dir: dir, Argv: cmd, Limits: lim, ReadOnlyDir: true})
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("start the referee: %w", err)
	}
	return &refereeProc{p: p, dir: dir}, nil
}

// refereeProc is one referee process and its copy of the referee's directory.
type refereeProc struct {
	p   *sandbox.SyncLineProc
	dir string
}

var errNoLine = errors.New("no line")

// Exchange waits a firm timeout: the referee is the host's program, the host's machine.
func (r *refereeProc) Exchange(line []byte, timeout time.Duration) ([]byte, error) {
	got, f := r.p.Exchange(line, timeout, true)
	if f != nil {
		detail := f.Detail
		switch f.Outcome {
		case engine.Timeout:
			detail = fmt.Sprintf("the referee wrote no line within %s (options.timeout); killed", timeout)
		case engine.OutputLimit:
			detail = "the referee wrote a line longer than its output limit"
		}
		return nil, fmt.Errorf("%w: %s (%s)", errNoLine, detail, f.Outcome)
	}
	return got, nil
}

func (r *refereeProc) Close() {
	r.p.Close()
	_ = os.RemoveAll(r.dir)
}
