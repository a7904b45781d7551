package cron

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// Over the bound however much is evicted, a directory in use stays; the leftovers of
// builds that never finished go whatever the bound.
func TestBoundBuildCacheKeepsWhatIsInUse(t *testing.T) {
	root := t.TempDir()
	at := time.Now().Add(-time.Hour)
	for i, n := range []string{"1-old", "2-current", "3-newer"} {
		d := filepath.Join(root, n)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "bot"), make([]byte, 64<<10), 0o644); err != nil {
			t.Fatal(err)
		}
		stamp := at.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(d, stamp, stamp); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, ".build-9-x-123", "bot"), 0o755); err != nil {
		t.Fatal(err)
	}
	inUse := map[string]bool{filepath.Join(root, "2-current"): true}
	evicted, total, err := boundBuildCache(root, inUse, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(root, "1-old"), filepath.Join(root, "3-newer")}
	if !slices.Equal(evicted, want) {
		t.Errorf("evicted %v, want %v (least recently used first)", evicted, want)
	}
	es, _ := os.ReadDir(root)
	if len(es) != 1 || es[0].Name() != "2-current" || total <= 0 {
		t.Errorf("left %v (%d bytes), want the directory in use alone", es, total)
	}
}
