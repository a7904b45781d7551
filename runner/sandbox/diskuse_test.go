package sandbox

import (
	"context"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
)

// TestHostileDiskAllowance: a bot under real bwrap fills its directory with about 16 MiB
// of long symbolic links, empty files and directories, and no regular file data; the
// directory allowance checked after its decision (8 MB) sees them all.
func TestHostileDiskAllowance(t *testing.T) {
	sb := NeedBwrap(t)
	w := NewHostileWorld(t)
	lim := Limits{MemoryMB: 256, Procs: 16, OpenFiles: 64, OutputBytes: 64 << 10, FileSizeMB: 8, DirMB: 8}
	spec, _ := w.install(t, oneshotAttack{script: "symlinks.py"}, lim)
	ans, f := RunArgv(context.Background(), sb, spec, []string{w.Marker}, 2*time.Minute)
	if f != nil || ans != "planted" {
		t.Fatalf("the bot did not plant its tree: %q %v", ans, f)
	}
	used := dirBytes(spec.Dir, 1<<40)
	t.Logf("the directory uses %d bytes", used)
	if used < 15<<20 {
		t.Errorf("counted %d bytes for 3,000 long links, 500 directories and 500 empty files; want at least 15 MiB", used)
	}
	if f := overDisk(spec, nil); f == nil || f.Outcome != engine.OutputLimit {
		t.Errorf("the allowance let the tree through: %v", f)
	}
	w.CheckAftermath(t)
}
