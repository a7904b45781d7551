package sandbox

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"

	"github.com/kothd/kothd/engine"
)

// overDisk judges the bot's directory after a decision: an output-limit fault when it is
// over spec.Limits.DirMB, else nil.
//
// A bounded directory (botfs.go) cannot be over: writes past the allowance failed inside
// the sandbox. It is judged full when no block or inode is left (one statfs), so a bot
// that filled it is told why its writes failed, decision after decision, until it deletes
// files. A plain directory (a host where bounded directories are unavailable) is walked,
// which only finds after the fact what the bot already wrote on the host's disk.
func overDisk(spec ProcSpec, f *engine.Fault) *engine.Fault {
	if f != nil && f.Outcome == engine.HostFault {
		return f
	}
	if bd := boundDirOf(spec.Dir); bd != nil {
		_, _, full, err := bd.usage()
		if err != nil {
			// The directory lives as long as the holder's namespace: if the holder died
			// (killed by hand, the machine's OOM killer), the bot's files are out of the
			// daemon's reach, which is the host's failure, not the bot's.
			return &engine.Fault{Outcome: engine.HostFault, Detail: fmt.Sprintf("the bot's directory is gone (%v): "+
				"the mount holder of the bots' directories died", err)}
		}
		if !full || (f != nil && f.Outcome != engine.Crash) {
			return f
		}
		detail := fmt.Sprintf("its directory is full: it holds its whole %d MB allowance or %d files and directories; "+
			"writes past it fail with ENOSPC", bd.bytes>>20, bd.inodes)
		if f != nil {
			detail += "; the process " + f.Detail
		}
		return &engine.Fault{Outcome: engine.OutputLimit, Detail: detail}
	}
	if f != nil || spec.Limits.DirMB <= 0 {
		return f
	}
	limit := int64(spec.Limits.DirMB) << 20
	if n := dirBytes(spec.Dir, limit); n > limit {
		return &engine.Fault{Outcome: engine.OutputLimit, Detail: fmt.Sprintf("its directory uses more than the %d MB allowed", spec.Limits.DirMB)}
	}
	return nil
}

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
