package cron_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/cron/crontest"
)

// The build cache is bounded (limits.build_cache_mb): five cycles of two C answers, each
// built directory a little over 1 MiB (a 1 MiB initialised array), under a 5 MiB bound.
// Answer A is edited in cycles 2 and 4, B in cycle 3; in cycle 5 A is back to its first
// revision. Cycle 4 holds five directories: the least recently used one (A's first, last
// used in cycle 1) goes, and only it. Cycle 5 builds A's first revision again (its
// directory was evicted) and evicts the next least recently used (B's first, cycle 2),
// never one of the cycle's own. Real gcc, real bwrap, real SQLite.
func TestBuildCacheBound(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	cy := withFakeGame(t, crontest.NewCycle(t, dir))
	ch, err := cy.Config.Challenge("bankheist")
	if err != nil {
		t.Fatal(err)
	}
	ch.Limits.BuildCacheMB = 5
	answer := func(name string, rev int) string {
		return fmt.Sprintf("<h1>%s, C</h1><pre><code>static volatile char pad[1 &lt;&lt; 20] = {%d};\nint main(void) { return pad[0] - %d; }\n</code></pre>", name, rev, rev)
	}
	revs := [][2]int{{1, 1}, {2, 1}, {2, 2}, {3, 2}, {1, 2}} // A's and B's revision per cycle
	botsDir := filepath.Join(cy.Config.DataDir, "bots", "bankheist")
	var cycleDirs [][]string // per cycle: A's directory, B's
	for i, r := range revs {
		cycle := i + 1
		cy.Source = crontest.WriteSnapshot(t, filepath.Join(dir, fmt.Sprintf("snap%d", cycle)), 115303, []string{answer("A", r[0]), answer("B", r[1])})
		rep, err := cy.Run(ctx, ch, cron.Options{Games: 2, Force: true})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Entered != 2 || len(rep.Rejected) != 0 {
			t.Fatalf("cycle %d: entered %d, rejected %+v", cycle, rep.Entered, rep.Rejected)
		}
		cycleDirs = append(cycleDirs, []string{newest(t, botsDir, "115304-*"), newest(t, botsDir, "115305-*")})
		have := cacheEntries(t, botsDir)
		var want []string
		switch cycle {
		case 1:
			want = []string{cycleDirs[0][0], cycleDirs[0][1]}
		case 2:
			want = []string{cycleDirs[0][0], cycleDirs[0][1], cycleDirs[1][0]}
		case 3:
			want = []string{cycleDirs[0][0], cycleDirs[0][1], cycleDirs[1][0], cycleDirs[2][1]}
		case 4: // A's first revision, used last in cycle 1, goes
			want = []string{cycleDirs[0][1], cycleDirs[1][0], cycleDirs[2][1], cycleDirs[3][0]}
		case 5: // A's first revision is back (built again); B's first, used last in cycle 2, goes
			if cycleDirs[4][0] != cycleDirs[0][0] {
				t.Fatalf("A's first revision got another directory: %s, %s", cycleDirs[4][0], cycleDirs[0][0])
			}
			want = []string{cycleDirs[1][0], cycleDirs[2][1], cycleDirs[3][0], cycleDirs[4][0]}
		}
		slices.Sort(want)
		if !slices.Equal(have, want) {
			t.Fatalf("cycle %d: the cache holds %v, want %v", cycle, have, want)
		}
		for _, d := range cycleDirs[i] {
			if _, err := os.Stat(filepath.Join(botsDir, d, "bot")); err != nil {
				t.Errorf("cycle %d: %s has no built binary: %v", cycle, d, err)
			}
		}
	}
}

// newest is the base name of the most recently used directory matching pattern under dir
// (the one materialise stamped last: the answer's current revision).
func newest(t *testing.T, dir, pattern string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, pattern))
	var best string
	var at int64
	for _, p := range m {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if n := fi.ModTime().UnixNano(); best == "" || n > at {
			best, at = filepath.Base(p), n
		}
	}
	if best == "" {
		t.Fatalf("no directory %s under %s", pattern, dir)
	}
	return best
}

// cacheEntries lists the entries of dir, sorted.
func cacheEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	slices.Sort(out)
	return out
}
