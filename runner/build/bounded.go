package build

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/runner/sandbox"
)

// A build runs in a directory of its own, bounded like a one-shot bot's during play
// (sandbox.BotDir): a copy of the answer's files on a tmpfs of limits.DirMB (default
// DefaultDiskMB) with one inode per 4 KiB of it, where the compiler's output and its
// temporary files (TMPDIR is the build's directory) are written. A write past it fails
// inside the sandbox with ENOSPC; the host's disk never holds any of it. Only a build that
// succeeds is copied out, into the bot's directory in the build cache; a failed one leaves
// its log there and nothing else. (Before, a 6.5 KB C answer filled a 3 GB data disk
// during its build, and failed builds left their temporaries in the cache for good.)

// DefaultDiskMB is a build's disk allowance when the challenge sets no
// limits.build_disk_mb: a cold Go build's cache is about 35 MB, the bundled answers' C and
// Java builds write well under 1 MB.
const DefaultDiskMB = 256

// BuildLog is the file a failed build leaves in the bot directory, alone: how it failed and
// the compiler's output (the same as the board shows).
const BuildLog = ".kothd-build.log"

// buildBounded builds the sources of dir in a bounded copy and settles dir: on success,
// replaced by what the build left (with the marker for hash); on the answer's failure,
// replaced by its log alone. A failure of the host's or a cancellation leaves dir as it was.
func buildBounded(ctx context.Context, sb sandbox.Sandbox, lang config.Language, dir, hash string, limits sandbox.Limits, timeout time.Duration) (string, error) {
	work, err := os.MkdirTemp(filepath.Dir(dir), ".build-"+filepath.Base(dir)+"-")
	if err != nil {
		return "", fmt.Errorf("build in %s: %w: %w", dir, ErrBuildHost, err)
	}
	defer os.RemoveAll(work)
	empty := filepath.Join(work, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		return "", fmt.Errorf("build in %s: %w: %w", dir, ErrBuildHost, err)
	}
	view, _, release, err := sandbox.BotDir(sb, filepath.Join(work, "bot"), empty, sandbox.Limits{DirMB: limits.DirMB})
	if err != nil {
		return "", fmt.Errorf("build in %s: a directory of %d MiB for the build: %w: %w", dir, limits.DirMB, ErrBuildHost, err)
	}
	defer release() // before the RemoveAll above: the mount goes first
	if err := stage(view, dir, lang, int64(limits.DirMB)<<20); err != nil {
		var be *BuildError
		if errors.As(err, &be) {
			return be.Log, settleFailure(dir, be)
		}
		return "", fmt.Errorf("build in %s: %w", dir, err)
	}

	log, err := runBuild(ctx, sb, lang, view, limits, timeout)
	var be *BuildError
	if err == nil || errors.As(err, &be) {
		if how, herr := overAllowance(view, limits.DirMB, log, err != nil); herr != nil {
			return log, fmt.Errorf("build in %s: measure the build's directory: %w: %w", dir, ErrBuildHost, herr)
		} else if how != "" {
			be = &BuildError{File: lang.File, How: how, Log: log}
			err = be
		}
	}
	switch {
	case be != nil:
		return log, settleFailure(dir, be)
	case err != nil:
		return log, err // the host's trouble or a cancellation: nothing is settled
	}
	err = replaceDir(dir, func(fresh string) error {
		if err := sandbox.CopyBotDir(fresh, view); err != nil {
			return err
		}
		return writeMarker(filepath.Join(fresh, BuildMarker), hash)
	})
	if err != nil {
		return log, fmt.Errorf("build in %s: keep what was built: %w: %w", dir, ErrBuildHost, err)
	}
	return log, nil
}

// settleFailure replaces dir by the failed build's log alone and returns be (or the host's
// error if dir could not be replaced).
func settleFailure(dir string, be *BuildError) error {
	err := replaceDir(dir, func(fresh string) error {
		text := be.Error() + "\n"
		if be.Log != "" {
			text += "\n" + be.Log + "\n"
		}
		return os.WriteFile(filepath.Join(fresh, BuildLog), []byte(text), 0o644)
	})
	if err != nil {
		return fmt.Errorf("build in %s: clear the failed build: %w: %w", dir, ErrBuildHost, err)
	}
	return be
}

// stage copies into the build's directory what the host put in dir: its top-level regular
// files (the answer's files, a `run` the protocol wrote), the sources first, without
// following links. A file that would not fit the allowance beside them is left out (only
// leftovers of a build made before builds were bounded can be that big); sources that do
// not fit are the answer's failure.
func stage(view, dir string, lang config.Language, allowance int64) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBuildHost, err)
	}
	type file struct {
		name   string
		source bool
	}
	var files []file
	for _, e := range entries {
		n := e.Name()
		if !e.Type().IsRegular() || n == BuildMarker || n == BuildMarker+".tmp" || n == BuildLog {
			continue
		}
		source, _ := sourceFile(lang, n)
		files = append(files, file{n, source})
	}
	sort.SliceStable(files, func(i, j int) bool { return files[i].source && !files[j].source })
	used := int64(0)
	for _, f := range files {
		r, size, err := openBotFile(filepath.Join(dir, f.name))
		if err != nil {
			continue // gone or swapped since listed: not the host's file
		}
		cost := max(size, 4096)
		if used+cost > allowance {
			r.Close()
			if f.source {
				return &BuildError{File: lang.File, How: fmt.Sprintf("its source files take more than the build's %d MiB disk allowance (limits.build_disk_mb)", allowance>>20)}
			}
			continue
		}
		data := make([]byte, size)
		_, err = r.ReadAt(data, 0)
		r.Close()
		if err != nil && size > 0 {
			return fmt.Errorf("%w: read %s: %w", ErrBuildHost, f.name, err)
		}
		info, _ := os.Lstat(filepath.Join(dir, f.name))
		mode := os.FileMode(0o644)
		if info != nil {
			mode = info.Mode().Perm()
		}
		if err := sandbox.WriteBotFile(view, f.name, data, mode); err != nil {
			return fmt.Errorf("%w: %w", ErrBuildHost, err)
		}
		used += cost
	}
	return nil
}

// overAllowance says, in a participant's words, which allowance the build ran into, or ""
// when it ran into none. failed tells whether the build failed: a bounded directory
// cannot be over its allowance, so only a failure that left it full (or whose compiler
// said so) is the allowance's, or a success whose copy out would write more than it (files
// of holes); a plain directory (a host without bounded directories) is over whatever the
// build's outcome.
func overAllowance(view string, mb int, log string, failed bool) (string, error) {
	u, err := sandbox.UsageOf(view)
	if err != nil {
		return "", err
	}
	bytesMsg := fmt.Sprintf("the build wrote more than its %d MiB disk allowance (limits.build_disk_mb)", mb)
	if !u.Bounded {
		if u.Bytes > int64(mb)<<20 {
			return bytesMsg, nil
		}
		return "", nil
	}
	switch {
	case !failed:
		// Its blocks fit, but files of holes hold none: what is copied out must fit too.
		if limit := int64(mb) << 20; sandbox.CopyBytes(view, limit) > limit {
			return bytesMsg, nil
		}
		return "", nil
	case u.NoInodes:
		return fmt.Sprintf("the build made more than its %d files and directories (one per 4 KiB of its %d MiB disk allowance, limits.build_disk_mb)", u.MaxEntries, mb), nil
	case u.NoSpace, strings.Contains(log, "No space left on device"):
		return bytesMsg, nil
	}
	return "", nil
}

// replaceDir fills a fresh directory beside dir and puts it in dir's place, in one step
// where the filesystem can (RENAME_EXCHANGE), and removes what was there. dir's old
// contents may be a bot's (an unbounded build of an older kothd wrote there as the bot):
// they are removed without following links.
func replaceDir(dir string, fill func(fresh string) error) error {
	fresh, err := os.MkdirTemp(filepath.Dir(dir), ".new-"+filepath.Base(dir)+"-")
	if err != nil {
		return err
	}
	if err := os.Chmod(fresh, 0o755); err != nil {
		os.RemoveAll(fresh)
		return err
	}
	if err := fill(fresh); err != nil {
		os.RemoveAll(fresh)
		return err
	}
	if err := unix.Renameat2(unix.AT_FDCWD, fresh, unix.AT_FDCWD, dir, unix.RENAME_EXCHANGE); err != nil {
		// No dir to exchange with, or a filesystem without the exchange: two renames.
		old := fresh + ".old"
		if err := os.Rename(dir, old); err != nil && !errors.Is(err, os.ErrNotExist) {
			os.RemoveAll(fresh)
			return err
		}
		if err := os.Rename(fresh, dir); err != nil {
			return err
		}
		fresh = old
	}
	return os.RemoveAll(fresh)
}
