// Package build compiles an answer with its language's build command inside the sandbox,
// remembers failed builds and pyclass class listings by content (Memo), and resolves a
// language's spelling to the host's configured languages.
package build

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/kothd/kothd/runner/sandbox"

	"github.com/kothd/kothd/config"
)

// BuildMarker is the file a successful build leaves in the bot directory. It holds the
// hash of the sources and the build command, so an unchanged bot is not compiled again.
const BuildMarker = ".kothd-built"

// DefaultBuildTimeout applies when Build is given no timeout. A cold Go build of a
// one-file bot takes several seconds on an idle machine; this leaves room for a busy one.
const DefaultBuildTimeout = 2 * time.Minute

// buildLogMax bounds the compiler output kept for the participant: the end of it, where
// the first error usually is not but the summary and the last errors are, and enough of
// the preceding lines to read them.
const buildLogMax = 4096

// ErrBuildHost marks a build that could not run at all (the sandbox refused the command or
// the compiler could not be started): the host's problem, not the answer's, so callers
// should retry later instead of reporting a compile error to the participant.
var ErrBuildHost = errors.New("build could not run on this host")

// headerExts are included in the source hash of every built language, beside the main
// file's own extension: a C answer's helper header changes the binary as much as bot.c.
var headerExts = map[string]bool{".h": true, ".hh": true, ".hpp": true, ".hxx": true, ".inc": true}

// buildLocks serialises builds of one directory, so two callers preparing the same bot
// compile it once and the second finds the marker.
var buildLocks sync.Map // dir → *sync.Mutex

// Build runs lang.Build (if any) on dir's files inside the sandbox sb, with limits and a
// wall timeout; it is cached by content: a successful build of the same sources leaves a
// marker (dir/.kothd-built holding the hash of the sources + build command) and is not
// redone. On failure it returns the compiler output (tail, readable) in log and a
// *BuildError.
//
// The build runs in a copy of dir bounded to limits.DirMB (DefaultDiskMB when unset) and
// one file or directory per 4 KiB of it (bounded.go); its temporary files go there too.
// Only a successful build is kept: dir is replaced by what it left. A failed one leaves dir
// holding its log (BuildLog) alone; one that ran into the allowance says so.
//
// A failure is cached too, in memo (if not nil), keyed by the sources, the build command,
// the sandbox, the limits and the timeout: the same sources are not built again (an
// include bomb would spend the whole timeout every cycle); the cached *BuildError says so
// and carries the first attempt's log. Changed sources, or a host that raises a limit,
// build again. Host failures and cancellations are not cached.
//
// The sources are lang.File and every top-level regular file with the same extension or a
// header extension (.h, .hpp, …); at least one file of the language must exist. Files the
// bot writes while it plays (memory files, the dirfiles protocol's from_server) do not
// invalidate the build. A language without a build command needs nothing and returns at
// once. On success log holds the compiler's output (warnings), or nothing when the cached
// build stood. The error wraps ErrBuildHost when the sandbox or the compiler could not be
// started, and the context's error when ctx was cancelled.
func Build(ctx context.Context, sb sandbox.Sandbox, memo Memo, lang config.Language, dir string, limits sandbox.Limits, timeout time.Duration) (log string, err error) {
	if len(lang.Build) == 0 {
		return "", nil
	}
	mu, _ := buildLocks.LoadOrStore(filepath.Clean(dir), new(sync.Mutex))
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()

	hash, err := sourceHash(lang, dir)
	if err != nil {
		return err.Error(), fmt.Errorf("build %s in %s: %w", lang.File, dir, err)
	}
	marker := filepath.Join(dir, BuildMarker)
	if b, err := readBotFile(marker, 256); err == nil && strings.TrimSpace(string(b)) == hash {
		return "", nil
	}
	// A stale marker must not outlive a failed rebuild.
	if err := os.Remove(marker); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("build in %s: remove stale marker: %w: %w", dir, ErrBuildHost, err)
	}
	if timeout <= 0 {
		timeout = DefaultBuildTimeout
	}
	if limits.DirMB <= 0 {
		limits.DirMB = DefaultDiskMB
	}
	key := MemoKey(hash, sb.Name(), fmt.Sprintf("%+v", limits), timeout.String())
	failed, err := recallBuildFailure(ctx, memo, key)
	if err != nil {
		return "", fmt.Errorf("build in %s: %w", dir, err)
	}
	if failed != nil {
		return failed.Log, failed
	}

	log, err = buildBounded(ctx, sb, lang, dir, hash, limits, timeout)
	if errors.As(err, &failed) {
		if err := rememberBuildFailure(ctx, memo, key, failed); err != nil {
			return log, fmt.Errorf("build in %s: %w", dir, err)
		}
	}
	return log, err
}

// runBuild runs the build command once and explains how it ended: a *BuildError when the
// sources failed to build.
func runBuild(ctx context.Context, sb sandbox.Sandbox, lang config.Language, dir string, limits sandbox.Limits, timeout time.Duration) (string, error) {
	// The build's timeout is a budget of CPU time for the whole sandbox (the cgroup's
	// watchdog and RLIMIT_CPU enforce it), so a loaded host cannot make a good answer fail
	// to build. The wall clock is only a backstop, buildWallFactor times longer.
	limits.CPUTime = timeout
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout*buildWallFactor)
	defer cancel()

	proc, err := sb.Command(ctx, sandbox.ProcSpec{Dir: dir, Argv: lang.Build, Limits: limits})
	if err != nil {
		return "", fmt.Errorf("build %s: sandbox %s: %w: %w", lang.File, sb.Name(), ErrBuildHost, err)
	}
	defer proc.Release()
	cmd := proc.Cmd
	out := sandbox.NewTailBuffer(4 * buildLogMax)
	cmd.Stdin = nil // the null device: a compiler never waits for input
	cmd.Stdout, cmd.Stderr = out, out
	// A grandchild that keeps the output pipe open must not hold Wait after the build
	// process itself has ended.
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("build %s: start %s in sandbox %s: %w: %w", lang.File, lang.Build[0], sb.Name(), ErrBuildHost, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var killed bool
	select {
	case err = <-done:
	case <-ctx.Done():
		sandbox.KillGroup(cmd)
		killed = true
		err = <-done
	}
	if errors.Is(err, exec.ErrWaitDelay) {
		// The compiler succeeded but left a process holding its output open; the group
		// still has that member, so its id is still ours to kill.
		sandbox.KillGroup(cmd)
		err = nil
	}
	log := readableLog(out.String(), dir)
	used, counted := proc.CPU()
	switch {
	case killed && parent.Err() == nil && counted:
		// The backstop, before the CPU budget was spent: the compiler was waiting for a
		// CPU, not computing. The host's trouble, so not remembered against the answer.
		return log, fmt.Errorf("build %s: %s passed with only %s of CPU time used (the host was busy); it is built again next cycle: %w",
			lang.File, timeout*buildWallFactor, used.Round(time.Millisecond), ErrBuildHost)
	case killed && parent.Err() == nil: // no CPU accounting: the wall clock is the only bound
		return log, &BuildError{File: lang.File, How: fmt.Sprintf("timed out after %s", timeout*buildWallFactor), Log: log}
	case err != nil && counted && (used >= timeout*9/10 || used >= timeout/2 && strings.Contains(log, "CPU time limit exceeded")):
		// A compiler process stopped by RLIMIT_CPU (gcc: "CPU time limit exceeded signal
		// terminated program cc1"): the kernel's count for one process ran ahead of the
		// cgroup's on a busy host (2.66 s against the 3 s limit, seen in CI).
		return log, &BuildError{File: lang.File, How: fmt.Sprintf("timed out after %s of CPU time", timeout), Log: log}
	case killed:
		return log, fmt.Errorf("build %s: %w", lang.File, ctx.Err())
	case err != nil && proc.OOMs() > 0:
		// The kernel killed a compiler process for the sandbox's memory; the driver that
		// reports it says only "exit status 4" (gcc's) or the like.
		return log, &BuildError{File: lang.File, How: "ran out of memory (memory_mb)", Log: log}
	case err != nil:
		return log, &BuildError{File: lang.File, How: describeExit(err), Log: log}
	}
	return log, nil
}

// buildWallFactor is how much longer than its CPU budget a build may take on the wall
// clock: room for a loaded host, and still a bound for a build that waits.
const buildWallFactor = 5

// describeExit names how a failed build process ended, in words a participant can act on.
func describeExit(err error) string {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return err.Error()
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		switch ws.Signal() {
		case syscall.SIGXCPU:
			return "compiler exceeded the CPU time limit"
		case syscall.SIGXFSZ:
			return "compiler exceeded the file size limit"
		case syscall.SIGKILL:
			return "compiler was killed (memory limit?)"
		}
		return "compiler died of " + ws.Signal().String()
	}
	return fmt.Sprintf("compiler failed (exit status %d)", ee.ExitCode())
}

// readableLog turns raw compiler output into text for a leaderboard: valid UTF-8, the
// host's path of the bot directory removed, cut to the last lines that fit buildLogMax.
func readableLog(s, dir string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if abs, err := filepath.Abs(dir); err == nil {
		s = strings.ReplaceAll(s, abs+string(filepath.Separator), "")
		s = strings.ReplaceAll(s, abs, ".")
	}
	s = strings.TrimRight(s, " \t\r\n")
	if len(s) <= buildLogMax {
		return s
	}
	cut := len(s) - buildLogMax
	for cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut++
	}
	if i := strings.IndexByte(s[cut:], '\n'); i >= 0 && i < buildLogMax/2 {
		cut += i + 1
	}
	return fmt.Sprintf("[… %d earlier bytes of compiler output cut]\n%s", cut, s[cut:])
}

// sourceFile says whether the file name is one of an answer's sources for lang: its main
// file or another file of its language (main), or a header a build includes.
func sourceFile(lang config.Language, name string) (source, main bool) {
	ext, x := filepath.Ext(lang.File), filepath.Ext(name)
	main = name == lang.File || (ext != "" && x == ext)
	return main || headerExts[x], main
}

// sourceHash is the hex SHA-256 of the build command and the source files (names and
// contents, in name order). There must be a source: the main file, or another file of its
// language (an answer that named its file robber.c; the build commands compile every file
// of their language).
func sourceHash(lang config.Language, dir string) (string, error) {
	if lang.File == "" {
		return "", errors.New("the language has a build command but no source file name")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("list sources: %w: %w", ErrBuildHost, err)
	}
	ext := filepath.Ext(lang.File)
	var names []string
	var found bool
	for _, e := range entries {
		n := e.Name()
		if !e.Type().IsRegular() || n == BuildMarker {
			continue
		}
		if source, main := sourceFile(lang, n); source {
			names = append(names, n)
			found = found || main
		}
	}
	if !found {
		if ext == "" {
			return "", fmt.Errorf("source file %s is missing", lang.File)
		}
		return "", fmt.Errorf("source file %s (or another %s file) is missing", lang.File, ext)
	}
	sort.Strings(names)
	h := sha256.New()
	fmt.Fprintf(h, "kothd build v1\n%d\n", len(lang.Build))
	for _, a := range lang.Build {
		fmt.Fprintf(h, "%d:%s\n", len(a), a)
	}
	for _, n := range names {
		f, size, err := openBotFile(filepath.Join(dir, n))
		if err == nil {
			fmt.Fprintf(h, "%d:%s\n%d:", len(n), n, size)
			_, err = io.Copy(h, io.LimitReader(f, size))
			f.Close()
		}
		if err != nil {
			return "", fmt.Errorf("hash source %s: %w: %w", n, ErrBuildHost, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// The bot directory is the bot's own: while it played, a bot may have put a symlink to a
// host file or a FIFO where Build reads or writes. The daemon touches files there only
// without following symlinks and without blocking.

// openBotFile opens a regular file for reading, refusing symlinks, FIFOs and devices.
func openBotFile(path string) (*os.File, int64, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file", filepath.Base(path))
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

// readBotFile reads at most max bytes of a regular file.
func readBotFile(path string, max int64) ([]byte, error) {
	f, _, err := openBotFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, max))
}

// writeMarker writes the marker through a fresh temporary file (O_EXCL: never through
// something already there), so a crash never leaves a marker claiming an unfinished build.
func writeMarker(path, hash string) error {
	tmp := path + ".tmp"
	if err := os.Remove(tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("write build marker: %w", err)
	}
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return fmt.Errorf("write build marker: %w", err)
	}
	_, err = f.WriteString(hash + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write build marker: %w", err)
	}
	return nil
}
