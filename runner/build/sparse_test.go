package build

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/runner/sandbox"
	"github.com/kothd/kothd/runner/sandbox/sandboxtest"
)

// shellBuild makes a bot directory under a fresh root whose build runs script (real bwrap,
// a real tmpfs of limits.DirMB), and returns the directory, the build's error and the most
// the host's disk held under the root while it ran.
func shellBuild(t *testing.T, sb sandbox.Sandbox, script string, mb int) (dir string, err error, peak int64) {
	t.Helper()
	root := t.TempDir()
	dir = filepath.Join(root, "4-abc")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "bot.sh", script)
	stop := watchDisk(root)
	lang := config.Language{File: "bot.sh", Build: []string{"sh", "./bot.sh"}}
	_, err = Build(context.Background(), sb, nil, lang, dir, sandbox.Limits{DirMB: mb}, time.Minute)
	return dir, err, stop()
}

// A build that succeeds leaving 40 files of one MiB of holes each: they hold no block of
// its 4 MiB tmpfs, and RLIMIT_FSIZE allows each, but a copy of them to the host's disk
// writes 40 MiB of zeros (with the default 256 MiB allowance and 64 MiB files: 65,536
// inodes of 64 MiB, 4 TiB). What the host keeps is what the allowance bounds: the build
// is the answer's failure naming it, and the host's disk holds the log alone.
func TestBuildSparseFilesOverAllowance(t *testing.T) {
	sb := sandboxtest.NeedBwrap(t)
	dir, err, peak := shellBuild(t, sb,
		"i=0; while [ $i -lt 40 ]; do dd if=/dev/zero of=s$i bs=1 count=0 seek=1048576 2>/dev/null || exit 1; i=$((i+1)); done\n", 4)
	var be *BuildError
	if !errors.As(err, &be) || !strings.Contains(be.How, "more than its 4 MiB disk allowance") {
		u, _ := sandbox.UsageOf(dir)
		t.Fatalf("err = %v, want a build error naming the disk allowance; the bot directory holds %d bytes", err, u.Bytes)
	}
	if peak > 1<<20 {
		t.Errorf("the host's disk held %d bytes under the data directory during the build", peak)
	}
	onlyLog(t, dir, be)
}

// A build that leaves one MiB under 41 names (hard links: one file's blocks on its tmpfs,
// as cargo links its output) keeps one file under 41 names: before, the copy to the
// host's disk wrote each name's MiB (with the default allowance, 65,536 names of a 200
// MiB file: 13 TB).
func TestBuildHardLinksCopiedAsLinks(t *testing.T) {
	sb := sandboxtest.NeedBwrap(t)
	dir, err, _ := shellBuild(t, sb,
		"head -c 1048576 /dev/zero > a || exit 1; i=0; while [ $i -lt 40 ]; do ln a l$i || exit 1; i=$((i+1)); done\n", 4)
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	u, err := sandbox.UsageOf(dir)
	if err != nil {
		t.Fatal(err)
	}
	if u.Bytes > 2<<20 {
		t.Errorf("the built directory holds %d bytes on the host's disk, want the one MiB file once", u.Bytes)
	}
	a, errA := os.Stat(filepath.Join(dir, "a"))
	l, errL := os.Stat(filepath.Join(dir, "l39"))
	if errA != nil || errL != nil || a.Sys().(*syscall.Stat_t).Ino != l.Sys().(*syscall.Stat_t).Ino {
		t.Errorf("a and l39 are not one file: %v %v", errA, errL)
	}
}

// The copy's measure counts what the copy writes, not a block per entry: a build that
// leaves 3,000 empty files and 10 MiB of data under a 16 MiB allowance (4,096 inodes) fits
// its directory and is kept (a block per entry would make it 22 MiB, over).
func TestBuildManySmallFilesKept(t *testing.T) {
	sb := sandboxtest.NeedBwrap(t)
	dir, err, _ := shellBuild(t, sb,
		"mkdir d && i=0; while [ $i -lt 3000 ]; do : > d/e$i || exit 1; i=$((i+1)); done; head -c 10485760 /dev/zero > data\n", 16)
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	if n := len(entries(t, filepath.Join(dir, "d"))); n != 3000 {
		t.Errorf("kept %d of the 3000 files", n)
	}
}
