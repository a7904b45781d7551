package cron_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/cron/crontest"
	"github.com/kothd/kothd/publisher"
	"github.com/kothd/kothd/runner/build"
)

// A C answer that does not compile, in an argv challenge, is built in the first cycle only:
// the second cycle does not build it again (a build would replace the bot's directory by
// its log alone, written anew: the log stays the first one and the answer's file, written
// again by the second cycle, stays beside it), and both show it as "failed build" with the
// compiler's log. Real gcc, real bwrap, real SQLite; the fake game plays the bots that
// build (the build is the argv adapter's, not the game's). A compile error rather than the
// include bomb that once spent the build timeout every cycle: the same path through the
// cycle, without depending on how busy the host is; runner's TestBuildIncludeBombBuiltOnce
// remembers the timeout itself.
func TestFailedBuildBuiltOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	cy := withFakeGame(t, crontest.NewCycle(t, dir))
	cy.Source = crontest.WriteSnapshot(t, filepath.Join(dir, "snap"), 115303, []string{
		"<h1>Broken, C</h1><pre><code>int main(void) { return undeclared_name; }\n</code></pre>",
		"<h1>Lurk, Python 3</h1><pre><code>print(0)\n</code></pre>",
		"<h1>Lurk Too, Python 3</h1><pre><code>print(0)\n</code></pre>",
	})
	ch, err := cy.Config.Challenge("bankheist")
	if err != nil {
		t.Fatal(err)
	}
	var first string
	var logTime time.Time
	for cycle := 1; cycle <= 2; cycle++ {
		rep, err := cy.Run(ctx, ch, cron.Options{Games: 2, Force: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Rejected) != 1 || rep.Rejected[0].Name != "Broken" || rep.Rejected[0].Status != "failed build" {
			t.Fatalf("cycle %d: rejected %+v", cycle, rep.Rejected)
		}
		reason := rep.Rejected[0].Reason
		for _, want := range []string{"compile error", "bot.c:1", "undeclared_name"} {
			if !strings.Contains(reason, want) {
				t.Errorf("cycle %d: reason lacks %q: %.300q", cycle, want, reason)
			}
		}
		if cycle == 1 {
			first = reason
		} else {
			if !strings.Contains(reason, "not built again until the answer changes") {
				t.Errorf("cycle 2: reason does not say the build was not tried again: %.300q", reason)
			}
			_, log1, _ := strings.Cut(first, "\n")
			if _, log2, _ := strings.Cut(reason, "\n"); log1 == "" || log2 != log1 {
				t.Errorf("cycle 2 shows another log than cycle 1")
			}
		}
		var status string
		if err := cy.Store.DB().QueryRow(`SELECT status FROM bots WHERE name = 'Broken'`).Scan(&status); err != nil || status != "failed build" {
			t.Errorf("cycle %d: stored status %q (%v)", cycle, status, err)
		}
		md, err := os.ReadFile(filepath.Join(cy.Config.OutputDir, "bankheist.md"))
		if err != nil || !strings.Contains(string(md), "| failed build |") || !strings.Contains(string(md), publisher.Text("undeclared_name")) {
			t.Errorf("cycle %d: the board does not show the failed build (%v)", cycle, err)
		}
		dirs, _ := filepath.Glob(filepath.Join(cy.Config.DataDir, "bots", "bankheist", "115304-*"))
		if len(dirs) != 1 {
			t.Fatalf("cycle %d: bot directories %v", cycle, dirs)
		}
		fi, err := os.Stat(filepath.Join(dirs[0], build.BuildLog))
		if err != nil {
			t.Fatalf("cycle %d: the failed build left no log: %v", cycle, err)
		}
		want := []string{build.BuildLog}
		if cycle == 1 {
			logTime = fi.ModTime()
		} else {
			want = []string{build.BuildLog, "bot.c"}
			if !fi.ModTime().Equal(logTime) {
				t.Errorf("cycle %d: the build log was written again: the answer was built again", cycle)
			}
		}
		if got := cacheEntries(t, dirs[0]); !slices.Equal(got, want) {
			t.Errorf("cycle %d: the broken answer's directory holds %v, want %v", cycle, got, want)
		}
	}
}

// An answer whose import is slow is listed (its classes found by executing it) in the first
// cycle only. Measured through the store: the listing is remembered when it runs, and the
// store's clock says in which cycle that happened.
func TestSlowImportListedOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	cy := crontest.NewCycle(t, dir)
	cy.Source = crontest.WriteSnapshot(t, filepath.Join(dir, "snap"), 177765, []string{
		"<h1>Slow</h1><pre><code>import time\ntime.sleep(1)\nclass Slow(Bot):\n    def make_throw(self, scores, last_round):\n        yield False\n</code></pre>",
	})
	ch, err := cy.Config.Challenge("forty")
	if err != nil {
		t.Fatal(err)
	}
	crontest.Patient(ch) // played beside other tests: no call may time out
	ch.Baselines = false
	for cycle := int64(1); cycle <= 2; cycle++ {
		at := time.Unix(1_700_000_000+cycle*3600, 0)
		cy.Store.SetClock(func() time.Time { return at })
		rep, err := cy.Run(ctx, ch, cron.Options{Games: 2, Force: true})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Entered != 1 || len(rep.Rejected) != 0 {
			t.Fatalf("cycle %d: entered %d, rejected %+v", cycle, rep.Entered, rep.Rejected)
		}
	}
	var n int
	var created int64
	err = cy.Store.DB().QueryRow(`SELECT count(*), max(created) FROM content_cache WHERE kind = 'classes'`).Scan(&n, &created)
	if err != nil || n != 1 || created != 1_700_000_000+3600 {
		t.Errorf("%d listings remembered, the last at %d (%v); want one, in cycle 1 (%d)", n, created, err, 1_700_000_000+3600)
	}
}
