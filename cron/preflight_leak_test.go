package cron

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/runner/sandbox/sandboxtest"
)

// openFDs counts the daemon's open descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(fds)
}

// ownCgroups lists the sandbox cgroups this process has made and not removed, in every
// hierarchy under /sys/fs/cgroup (their names start kothd-<pid>-).
func ownCgroups() []string {
	prefix := "kothd-" + strconv.Itoa(os.Getpid()) + "-"
	var dirs []string
	_ = filepath.WalkDir("/sys/fs/cgroup", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if strings.HasPrefix(d.Name(), prefix) {
			dirs = append(dirs, path)
		}
		return nil
	})
	return dirs
}

// TestPreflightReleasesItsSandbox: the preflight's sandboxed check gives back its cgroup
// and bwrap's files when it returns, not when the garbage collector runs (which this test
// keeps from running). It ran leaving one cgroup directory and three open files behind.
func TestPreflightReleasesItsSandbox(t *testing.T) {
	sb := sandboxtest.NeedBwrap(t)
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	c := &Cycle{Config: &config.Config{}, Sandbox: sb}
	// Once first: what starts once per process (the seccomp filter, the bot directories'
	// holder) must not count as the check's.
	if errs := c.checkInterpreters(context.Background()); len(errs) > 0 {
		t.Fatal(errs)
	}
	fds, cgroups := openFDs(t), ownCgroups()
	for range 3 {
		if errs := c.checkInterpreters(context.Background()); len(errs) > 0 {
			t.Fatal(errs)
		}
	}
	if n := openFDs(t); n > fds {
		t.Errorf("%d descriptors open after three checks, %d before", n, fds)
	}
	if after := ownCgroups(); len(after) > len(cgroups) {
		t.Errorf("cgroups left behind: %v (before: %v)", after, cgroups)
	}
}
