package cron

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// What a preflight killed by SIGKILL left in the temporary directory is removed at the next
// start; a recent one (another kothd's check under way) stays.
func TestCleanPreflightDirs(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	old, recent := filepath.Join(tmp, "kothd-preflight-123"), filepath.Join(tmp, "kothd-preflight-456")
	for _, d := range []string{old, recent} {
		if err := os.MkdirAll(filepath.Join(d, "x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	hour := time.Now().Add(-time.Hour)
	os.Chtimes(old, hour, hour)
	if n := CleanPreflightDirs(); n != 1 {
		t.Errorf("removed %d, want 1", n)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("the stale preflight directory stays: %v", err)
	}
	if _, err := os.Stat(recent); err != nil {
		t.Errorf("a recent one was removed: %v", err)
	}
}
