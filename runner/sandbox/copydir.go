package sandbox

import (
	"fmt"
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
func CopyBotDir(dst, src string) error {
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
			data := make([]byte, info.Size())
			if _, err := f.ReadAt(data, 0); err != nil && info.Size() > 0 {
				return fmt.Errorf("copy %s: %w", rel, err)
			}
			return os.WriteFile(target, data, info.Mode().Perm())
		}
		return nil
	})
}
