package runner

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"

	"github.com/kothd/kothd/engine"
)

// overDisk is an output-limit fault when the bot's directory uses more than
// spec.Limits.DirMB, else nil. Bots write there with the host's disk underneath; without
// this a bot could fill it with many files, each under the per-file limit.
func overDisk(spec ProcSpec) *engine.Fault {
	if spec.Limits.DirMB <= 0 {
		return nil
	}
	limit := int64(spec.Limits.DirMB) << 20
	if n := dirBytes(spec.Dir, limit); n > limit {
		return &engine.Fault{Outcome: engine.OutputLimit, Detail: fmt.Sprintf("its directory uses more than the %d MB allowed", spec.Limits.DirMB)}
	}
	return nil
}

// inodeBytes is the least an entry of any kind is charged: one filesystem block. An empty
// file, a directory or a short symbolic link uses no data block of its own but does use
// an inode and a directory entry, and 400,000 of them are not free.
const inodeBytes = 4096

// dirBytes is what the tree under dir (dir included) uses, without following links,
// stopping once the total passes stop. Every entry counts, whatever its kind (files,
// directories, symbolic links, fifos, sockets): the larger of its apparent size and the
// blocks it holds, and at least inodeBytes. A file with several names in the tree counts
// once.
func dirBytes(dir string, stop int64) int64 {
	var n int64
	seen := map[uint64]bool{}
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			// An entry that cannot be read still exists.
			n += inodeBytes
			return nil
		}
		info, err := d.Info()
		if err != nil {
			n += inodeBytes
			return nil
		}
		size := max(info.Size(), inodeBytes)
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			if st.Nlink > 1 && !info.IsDir() {
				if seen[st.Ino] {
					return nil
				}
				seen[st.Ino] = true
			}
			size = max(size, st.Blocks*512)
		}
		n += size
		if n > stop {
			return filepath.SkipAll
		}
		return nil
	})
	return n
}
