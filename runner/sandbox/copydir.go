package sandbox

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// CopyBotDir copies a bot's directory to dst (which must not exist) for a run of its own:
// regular files and directories only. Anything else a bot may have left there while it ran
// (symbolic links to host files, FIFOs, sockets) is skipped rather than followed or failed
// on, so a bot cannot make the daemon read a host file into a bot directory, block it on a
// FIFO, or stop the tournament by planting an odd file.
//
// A file with several names in the tree is copied once and linked under the others: a
// copy of each name would write the file again per name, and a bounded directory's
// allowance counts it once (a build's 1 MiB file under 40 names was 41 MiB on the host's
// disk; 65,536 names of a 200 MiB file would be 13 TB).
func CopyBotDir(dst, src string) error {
	copied := map[uint64]string{} // inode of a file with several names: its copy
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("copy bot directory: %w", err)
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type().IsRegular():
			// O_NOFOLLOW: the entry was a regular file when listed; if the bot swapped it
			// for a link since, opening fails instead of reading through it.
			f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
			if err != nil {
				return nil
			}
			defer f.Close()
			info, err := f.Stat()
			if err != nil || !info.Mode().IsRegular() {
				return nil
			}
			var ino uint64
			st, linked := info.Sys().(*syscall.Stat_t)
			if linked = linked && st.Nlink > 1; linked {
				ino = st.Ino
			}
			if first, ok := copied[ino]; linked && ok {
				if err := os.Link(first, target); err != nil {
					return fmt.Errorf("copy %s: %w", rel, err)
				}
				return nil
			}
			// Streamed, not read whole: a built directory may hold a file of hundreds of
			// megabytes (runner/build copies its bounded build directory out this way).
			out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, info.Mode().Perm())
			if err != nil {
				return err
			}
			_, err = io.Copy(out, io.LimitReader(f, info.Size()))
			if cerr := out.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fmt.Errorf("copy %s: %w", rel, err)
			}
			if linked {
				copied[ino] = target
			}
			return nil
		}
		return nil
	})
}
