package sandbox

import (
	"io/fs"
	"path/filepath"
	"syscall"
)

// DirUsage is what a directory made by BotDir holds against its allowance: bytes and
// entries in use and, for a bounded directory (a filesystem of its own), its size and
// whether a block or an inode is left. Builds use it to say which allowance an answer's
// build ran into (runner/build).
type DirUsage struct {
	Bytes, Entries       int64 // in use: blocks and inodes, or the walk's measure (dirBytes)
	MaxBytes, MaxEntries int64 // a bounded directory's size and inodes; 0 for a plain one
	Bounded              bool  // a filesystem of its own, where writes past it failed
	NoSpace, NoInodes    bool  // bounded: no block left, no inode left
}

// UsageOf measures dir, a directory BotDir returned: one statfs for a bounded directory,
// a walk of the tree for a plain one (every entry counts, at least a block each).
func UsageOf(dir string) (DirUsage, error) {
	if bd := boundDirOf(dir); bd != nil {
		used, inodes, _, err := bd.usage()
		if err != nil {
			return DirUsage{}, err
		}
		// A tmpfs has no reserved blocks: Bavail is Bfree, so "no block left" is used
		// reaching the size, within a page.
		return DirUsage{Bytes: used, Entries: inodes, MaxBytes: bd.bytes, MaxEntries: bd.inodes, Bounded: true,
			NoSpace: used+inodeBytes > bd.bytes, NoInodes: inodes >= bd.inodes}, nil
	}
	bytes, entries := treeUse(dir)
	return DirUsage{Bytes: bytes, Entries: entries}, nil
}

// CopyBytes is what a copy of dir (CopyBotDir) writes, stopping once past stop: each
// regular file's apparent size in whole blocks, once per file whatever its names. A bounded
// directory's own use counts the blocks a file holds, so files of holes (which
// RLIMIT_FSIZE allows, and which take no block of a tmpfs) fit it while their copy writes
// zeros: a build kept on the host's disk is checked with this before it is copied out
// (runner/build). Entries are not counted a block each as dirBytes counts them: their
// number is bounded by the directory's inodes already.
func CopyBytes(dir string, stop int64) int64 {
	var n int64
	seen := map[uint64]bool{}
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok && st.Nlink > 1 {
			if seen[st.Ino] {
				return nil
			}
			seen[st.Ino] = true
		}
		n += (info.Size() + inodeBytes - 1) / inodeBytes * inodeBytes
		if n > stop {
			return filepath.SkipAll
		}
		return nil
	})
	return n
}
