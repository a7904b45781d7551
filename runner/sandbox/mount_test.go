package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
)

// A bot can be shown its directory under a chosen name (Mafia bots learn their player
// name from it); odd mount points fall back to /bot.
func TestMountPoint(t *testing.T) {
	sb := NeedBwrap(t)
	dir := filepath.Join(t.TempDir(), "Alice")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for mount, want := range map[string]string{"/players/Alice": "/players/Alice", "": "/bot", "/usr/x": "/bot", "players/rel": "/bot"} {
		out, f := RunArgv(context.Background(), sb, ProcSpec{Dir: dir, Mount: mount, Argv: []string{"/bin/sh", "-c", "pwd; echo $HOME"}}, nil, 10*time.Second)
		if f != nil {
			t.Fatalf("mount %q: %v", mount, f)
		}
		if out != want+"\n"+want {
			t.Errorf("mount %q: pwd/HOME = %q, want %q", mount, out, want)
		}
	}
}

// A read-only bot directory cannot be written, by the bot or anything it starts.
func TestReadOnlyDir(t *testing.T) {
	sb := NeedBwrap(t)
	dir := t.TempDir()
	out, f := RunArgv(context.Background(), sb, ProcSpec{Dir: dir, ReadOnlyDir: true, Argv: []string{"/bin/sh", "-c", "echo x > state 2>/dev/null && echo wrote || echo refused"}}, nil, 10*time.Second)
	if f != nil || out != "refused" {
		t.Fatalf("out %q fault %v", out, f)
	}
	if _, err := os.Stat(filepath.Join(dir, "state")); err == nil {
		t.Fatal("a file was written into a read-only bot directory")
	}
}

// Many files each under the per-file limit still cannot fill the disk: past the
// directory's allowance the decision is an output-limit fault.
func TestDirAllowance(t *testing.T) {
	sb := NeedBwrap(t)
	dir := t.TempDir()
	lim := Limits{FileSizeMB: 1, DirMB: 2}
	l := NewLauncher(sb, ProcSpec{Dir: dir, Argv: []string{"/bin/sh", "-c", `for i in 1 2 3 4; do head -c 900000 /dev/zero > f$i; done; echo ok`}, Limits: lim})
	defer l.Close()
	out, f := l.Run(context.Background(), nil, 10*time.Second)
	if f == nil || f.Outcome != engine.OutputLimit {
		t.Fatalf("4 × 900 KB under a 2 MB allowance: out %q fault %v", out, f)
	}
}
