// Package dirfiles is the files-in-a-directory protocol (Mafia): each bot's directory
// holds the game's files, which the host writes before and reads after each run of the
// bot's command.
package dirfiles

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/runner/dirsnap"
	"github.com/kothd/kothd/runner/protocol"
	"github.com/kothd/kothd/runner/sandbox"
)

// The dirfiles protocol (Mafia): every bot is a directory holding an executable `run`. The
// engine writes the bot's messages to `from_server` (and the game's player list to
// `players`), runs `./run` with the directory as working directory, then reads and empties
// `to_server`. A new process is started for every decision; whatever else the bot writes in
// its directory is its memory and persists for the whole tournament.

// The files of a dirfiles bot directory.
const (
	RunFile     = "run"
	FromServer  = "from_server"
	ToServer    = "to_server"
	PlayersFile = "players"
	// ShimDir holds interpreter shims (`python` → the answer's Python) that the pool puts
	// first on PATH, relative to the bot's directory so it survives a sandbox's remount.
	ShimDir = ".kothd/bin"
)

// DirConfig configures the processes of one dirfiles tournament.
type DirConfig struct {
	// Command runs the bot in its directory. Default: ./run, executed directly, which is
	// what the original controller's `sh -c ./run` amounts to without a shell process per
	// decision; a `run` the kernel refuses to execute (no #! line: ENOEXEC) is run by
	// /bin/sh, as that shell would, and exit statuses follow the shell's (127: not found,
	// 126: not executable).
	Command   []string
	Timeout   time.Duration // wall-clock limit of one run (default 10s)
	MaxOutput int64         // bytes of to_server read; a bigger file is an OutputLimit (default 64 KiB)
	Limits    sandbox.Limits
	// Shares is the run's cgroup: each bot's sandbox goes under its answer's (nil: none).
	Shares *sandbox.Shares
	// FaultStreak benches a bot for the rest of the run after that many faulted runs in a
	// row (0: never); Budget does after its runs took that much wall time together (0:
	// none). A benched bot's runs fail at once, as a timeout that says why. A bot that
	// slept through every run stretched one Mafia game from 13 s to 17 minutes.
	FaultStreak int
	Budget      time.Duration
}

// DirPool runs the bots of one tournament and keeps their fault accounting. Each bot has
// a Launcher, so a run costs one process start, not one sandbox. Its methods may be called
// concurrently for different bots, never for the same bot.
type DirPool struct {
	cfg       DirConfig
	sb        sandbox.Sandbox
	bots      []engine.Bot
	launchers []*sandbox.Launcher
	// shell[i], started on the first `run` of bot i that the kernel would not execute,
	// runs it through /bin/sh from then on (nil: the direct launcher serves the bot).
	shell  []*sandbox.Launcher
	direct bool // cfg.Command is the default ./run: the shell fallback applies
	stats  []*protocol.Stats
	last   []string       // the last from_server written, for the fault report's input
	exit   []int          // the exit status of the last run, -1 when it did not exit normally
	base   []dirsnap.Base // each bot's directory before its first run (Keep, Restore)
	// Per bot, for the bench (cfg.FaultStreak, cfg.Budget): its last runs that all
	// faulted, the wall time of its runs so far, and the fault its runs get once it is
	// benched (nil: it is not).
	faulted []int
	spent   []time.Duration
	bench   []*engine.Fault
}

// NewDirPool prepares a pool; nothing is started until Run. Close it when done. Of each bot
// it reads the directory (Dir, named after its game name) and the leaderboard name (Name);
// the command is cfg's, the same for every bot.
func NewDirPool(sb sandbox.Sandbox, cfg DirConfig, bots []engine.Bot) *DirPool {
	direct := len(cfg.Command) == 0
	if direct {
		cfg.Command = []string{"./" + RunFile}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.MaxOutput <= 0 {
		cfg.MaxOutput = 64 << 10
	}
	n := len(bots)
	p := &DirPool{cfg: cfg, sb: sb, bots: bots, launchers: make([]*sandbox.Launcher, n), shell: make([]*sandbox.Launcher, n), direct: direct,
		stats: make([]*protocol.Stats, n), last: make([]string, n), exit: make([]int, n), base: make([]dirsnap.Base, n),
		faulted: make([]int, n), spent: make([]time.Duration, n), bench: make([]*engine.Fault, n)}
	for i := range bots {
		p.stats[i] = protocol.NewStats()
		p.launchers[i] = p.launcher(i, cfg.Command)
	}
	return p
}

// launcher prepares bot i's launcher for a command.
func (p *DirPool) launcher(i int, argv []string) *sandbox.Launcher {
	b := p.bots[i]
	// Mafia bots know their name by their directory (spec §1.1): keep it visible.
	return sandbox.NewLauncher(p.sb, sandbox.ProcSpec{Dir: b.Dir, Mount: "/players/" + filepath.Base(b.Dir), Argv: argv, Env: []string{"PATH=" + ShimPath()},
		Limits: p.cfg.Limits, Prefixes: shimTargets(b.Dir),
		Share: p.cfg.Shares.Answer(sandbox.AnswerKey(b.AnswerID, i))})
}

// shimTargets lists the interpreters the shims InstallShims wrote name, read when the pool
// is made (before any decision of the bot): the sandbox binds their prefixes, which the
// bot's `run` script names but its command (./run) does not. A bot's build could add a
// shim of its own; the sandbox binds only prefixes under /root/.pyenv/versions and
// /usr/local, another interpreter at most.
func shimTargets(dir string) []string {
	entries, err := os.ReadDir(filepath.Join(dir, ShimDir))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, ShimDir, e.Name()))
		if err != nil || len(b) > 4096 {
			continue
		}
		rest, ok := strings.CutPrefix(string(b), "#!/bin/sh\nexec '")
		if !ok {
			continue
		}
		if target, _, ok := strings.Cut(rest, "'"); ok && filepath.IsAbs(target) {
			out = append(out, filepath.Dir(filepath.Dir(filepath.Clean(target))))
		}
	}
	return out
}

// Close stops the bots' launchers.
func (p *DirPool) Close() {
	for i, l := range p.launchers {
		l.Close()
		if p.shell[i] != nil {
			p.shell[i].Close()
		}
	}
}

// Stats returns the fault accounting of a bot.
func (p *DirPool) Stats(bot int) *protocol.Stats { return p.stats[bot] }

// LastExit is the exit status of the bot's last run: as from a shell, 126 and 127 mean
// `run` (or the interpreter it names) could not be started. -1 when the run did not end
// by exiting (killed, timed out, never started).
func (p *DirPool) LastExit(bot int) int { return p.exit[bot] }

// Setup starts a game for a bot: `players` holds the names, `from_server` and `to_server`
// are emptied.
func (p *DirPool) Setup(game, bot int, players []string) error {
	dir := p.bots[bot].Dir
	if err := p.takeBase(bot); err != nil {
		return err
	}
	p.last[bot] = ""
	for _, f := range []struct{ name, text string }{
		{PlayersFile, strings.Join(players, "\n")}, {FromServer, ""}, {ToServer, ""},
	} {
		if err := replaceFile(filepath.Join(dir, f.name), f.text); err != nil {
			return fmt.Errorf("set up %s for a new game: %w", p.bots[bot].Name, err)
		}
	}
	return nil
}

// Deliver replaces the bot's from_server with text.
func (p *DirPool) Deliver(bot int, text string) error {
	p.last[bot] = text
	if err := replaceFile(filepath.Join(p.bots[bot].Dir, FromServer), text); err != nil {
		return fmt.Errorf("write from_server of %s: %w", p.bots[bot].Name, err)
	}
	return nil
}

// Run runs the bot once. With collect set it then returns what the bot wrote to to_server
// and empties the file; without, to_server is left alone (the Mafia result run). A run that
// times out counts as having written nothing. A crash or non-zero exit is reported as a
// fault, but what the bot wrote is still returned: the original ignored the exit status.
func (p *DirPool) Run(ctx context.Context, at engine.At, bot int, collect bool) (string, *engine.Fault) {
	b := p.bots[bot]
	input := func() any {
		return map[string]any{"bot": b.Name, "game": at.Game, "turn": at.Turn, FromServer: sandbox.Truncate(p.last[bot], 2000)}
	}
	if f := p.bench[bot]; f != nil {
		p.exit[bot] = -1
		p.stats[bot].BenchCalls(1)
		p.stats[bot].Record(f, input())
		return "", f
	}
	start := time.Now()
	r := p.launch(ctx, bot)
	took := time.Since(start)
	f := r.Fault
	p.exit[bot] = r.Exit
	var out string
	switch {
	case f != nil && f.Outcome == engine.HostFault:
	case f != nil && f.Outcome == engine.Timeout:
		// A killed bot may have left half an answer: it counts as no answer.
		_, _ = takeOutput(filepath.Join(b.Dir, ToServer), 0)
	case collect:
		var rf *engine.Fault
		out, rf = takeOutput(filepath.Join(b.Dir, ToServer), p.cfg.MaxOutput)
		if f == nil {
			f = rf
		}
	}
	p.stats[bot].Record(f, input())
	p.judge(at, bot, f, r.Exit, took)
	return out, f
}

// judge counts a run (its fault, its exit status, its wall time) toward the bot's bench: a
// streak of faulted runs, or the wall time of its runs over the budget, benches it from
// its next run on. A host fault is no run of the bot's: it neither breaks nor extends a
// streak and its time is not charged. A run that exited with an ordinary non-zero status
// still gave its answer (the original ignored the status, and a shell script's last test
// may well be false): a fault in the accounting, but it breaks a streak as an OK run does.
func (p *DirPool) judge(at engine.At, bot int, f *engine.Fault, exit int, took time.Duration) {
	answered := f == nil || f.Outcome == engine.Crash && exit > 0 && exit != 126 && exit != 127
	p.faulted[bot] = protocol.Streak(p.faulted[bot], f, answered)
	if f == nil || f.Outcome != engine.HostFault {
		p.spent[bot] += took
	}
	if why, b := protocol.OneShotBench(at.Game, p.faulted[bot], p.cfg.FaultStreak, p.spent[bot], p.cfg.Budget); why != nil {
		p.bench[bot] = why
		p.stats[bot].SetBench(b)
	}
}

// launch runs the bot's command once. With the default command, a `run` the kernel would
// not execute (ENOEXEC: a script without #!) is run again by /bin/sh, as `sh -c ./run`
// would have: nothing of the bot ran the first time. The exit status of a `run` that
// cannot be executed is the shell's: 127 when it (or its #! interpreter) does not exist,
// 126 otherwise, which validation reads as "cannot be started".
func (p *DirPool) launch(ctx context.Context, bot int) sandbox.Launched {
	job := sandbox.Job{Timeout: p.cfg.Timeout, DiscardStdout: true}
	if p.shell[bot] != nil {
		return p.shell[bot].Launch(ctx, job)
	}
	r := p.launchers[bot].Launch(ctx, job)
	if p.direct && r.Errno == syscall.ENOEXEC {
		p.shell[bot] = p.launcher(bot, []string{"/bin/sh", "./" + RunFile})
		r = p.shell[bot].Launch(ctx, job)
	}
	switch {
	case r.Errno == syscall.ENOENT:
		r.Exit = 127
	case r.Errno != 0:
		r.Exit = 126
	}
	return r
}

// ShimPath is the bots' PATH: the directory of interpreter shims first, then the usual.
func ShimPath() string {
	for _, kv := range sandbox.BaseEnv("") {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			return ShimDir + ":" + v
		}
	}
	return ShimDir
}

// InstallShims installs, in dir/ShimDir, one small script per interpreter name that execs
// the real interpreter (python → /root/.pyenv/versions/2.7.18/bin/python2.7), so that a
// Python 2 answer's `#!/usr/bin/env python` finds the interpreter its language entry
// names. Scripts rather than symbolic links: they survive copying and any remount.
func InstallShims(dir string, targets map[string]string) error {
	if len(targets) == 0 {
		return nil
	}
	sd := filepath.Join(dir, ShimDir)
	if err := os.MkdirAll(sd, 0o755); err != nil {
		return fmt.Errorf("install interpreter shims: %w", err)
	}
	for name, target := range targets {
		script := "#!/bin/sh\nexec '" + strings.ReplaceAll(target, "'", `'\''`) + "' \"$@\"\n"
		if err := replaceFile(filepath.Join(sd, name), script); err != nil {
			return fmt.Errorf("install interpreter shim %s: %w", name, err)
		}
		if err := os.Chmod(filepath.Join(sd, name), 0o755); err != nil {
			return fmt.Errorf("install interpreter shim %s: %w", name, err)
		}
	}
	return nil
}

// errNotRegular marks a protocol file the bot replaced by something else (a directory, a
// FIFO, a symbolic or hard link): the engine never follows or blocks on it.
var errNotRegular = errors.New("not a regular file")

// openRegular opens path without following a symbolic link and without blocking on a FIFO,
// and accepts only a regular file with a single link.
func openRegular(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); !st.Mode().IsRegular() || (ok && sys.Nlink > 1) {
		f.Close()
		return nil, errNotRegular
	}
	return f, nil
}

// replaceFile makes path a regular file holding text. An existing regular file is
// truncated in place, so it keeps its owner: a root daemon's bots run as another user, who
// owns the directory from the sandbox's start on and must stay able to write to_server.
// (WriteBotFile, which always creates a new file, would hand it to root.) Whatever else a
// bot put there is removed first, so the engine never writes through a link; a new file is
// created 0666 for the same reason of ownership.
func replaceFile(path, text string) error {
	// Truncate only once the file is known to be the bot's own: O_TRUNC would empty a
	// hard link to a file outside before openRegular could refuse it.
	f, err := openRegular(path, os.O_WRONLY)
	if err == nil {
		if err = f.Truncate(0); err != nil {
			f.Close()
			return err
		}
	} else {
		if err := os.RemoveAll(path); err != nil {
			return err
		}
		if f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o666); err != nil {
			return err
		}
		if err = f.Chmod(0o666); err != nil { // through the descriptor: no umask
			f.Close()
			return err
		}
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// takeOutput reads path (at most max bytes) and empties it. A missing file is an empty
// answer; a bigger file or something that is not a regular file is an empty answer and a
// fault.
func takeOutput(path string, max int64) (string, *engine.Fault) {
	f, err := openRegular(path, os.O_RDWR)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		_ = os.RemoveAll(path)
		return "", &engine.Fault{Outcome: engine.BadOutput, Detail: fmt.Sprintf("%s is unusable (%v); it was removed", ToServer, err)}
	}
	defer f.Close()
	buf, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return "", &engine.Fault{Outcome: engine.BadOutput, Detail: fmt.Sprintf("read %s: %v", ToServer, err)}
	}
	_ = f.Truncate(0)
	if int64(len(buf)) > max {
		if max == 0 {
			return "", nil // the caller only wanted the file emptied
		}
		return "", &engine.Fault{Outcome: engine.OutputLimit, Detail: fmt.Sprintf("%s holds more than %d bytes", ToServer, max)}
	}
	return string(buf), nil
}
