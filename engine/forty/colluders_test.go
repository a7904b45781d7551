package forty_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/cron/crontest"
	"github.com/kothd/kothd/scraper"
)

// colluderForty is an answer of three classes that never throw (they only fill memory):
// each class's process holds 45 MB from its import, so the answer holds about 170 MB,
// under its half of the 400 MB run; two such answers and the leader fill the run.
func colluderForty(name string) string {
	var b strings.Builder
	b.WriteString("<h1>" + name + "</h1><pre><code>held = bytearray(45 &lt;&lt; 20)\nfor i in range(0, len(held), 4096):\n    held[i] = 1\n")
	for _, c := range []string{"A", "B", "C"} {
		b.WriteString("class " + name + c + "(Bot):\n    def make_throw(self, scores, last_round):\n        yield False\n")
	}
	b.WriteString("</code></pre>")
	return b.String()
}

// leaderForty is an honest bot holding 100 MB (a table, say), within its share of the run
// (400 MB over three answers), that throws to 20 points a round: first of the field.
const leaderForty = `<h1>Leader</h1><pre><code>table = bytearray(100 &lt;&lt; 20)
for i in range(0, len(table), 4096):
    table[i] = 1
class Leader(Bot):
    def make_throw(self, scores, last_round):
        while sum(self.current_throws) &lt; 20:
            yield True
        yield False
</code></pre>`

// Two colluding answers knock the leader off the board: each under its half of the run's
// memory, together with the leader they fill it, and the kernel kills the largest process
// under the run, the leader, again and again. Before: its games voided (667 of 2,000 in
// the field where it was found) and, after 20 restarts, the leader given up on and last.
// Now the run's memory watcher stops the colluders before the run is full, charged to
// them, and the leader keeps its games and its rank.
//
// The watcher is a poll: it acts at least 96 MiB below the run's bound (watchTrigger),
// more than these colluders refill between two looks even with the host's cores kept busy
// (at 90 % of this 400 MB run, three processes spinning on the 2-core development host
// made it lose 7 runs of 8).
func TestColludersCannotKnockTheLeaderOff(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	crontest.WriteSnapshot(t, filepath.Join(dir, "snap"), 177765, []string{leaderForty, colluderForty("Left"), colluderForty("Right")})
	cy := crontest.NewCycle(t, dir)
	cy.Source = scraper.Snapshot{Dir: filepath.Join(dir, "snap"), Site: "codegolf"}
	ch, _ := cy.Config.Challenge("forty")
	ch.Baselines = false
	ch.Limits.TotalMemoryMB = 400
	seed := uint64(11)
	start := time.Now()
	rep, err := cy.Run(ctx, ch, cron.Options{Seed: &seed, Games: 60})
	if err != nil {
		t.Fatal(err)
	}
	run, err := cy.Store.GetRun(ctx, rep.RunID)
	if err != nil || run.Result == nil {
		t.Fatalf("run %+v: %v", run, err)
	}
	rows, err := cy.Store.Standings(ctx, rep.RunID)
	if err != nil {
		t.Fatal(err)
	}
	rank, first := 0, ""
	for _, r := range rows {
		t.Logf("%d %-8s %6.2f played %d faults %v %s", r.Rank, r.Bot, r.Score, r.Played, r.Faults, crontest.Clip(r.FirstFault, 300))
		if r.Bot == "Leader" {
			rank, first = r.Rank, r.FirstFault
		}
	}
	t.Logf("%d games played, %d voided, the leader ranked %d, in %v", run.Result.Games, run.Result.Voided, rank, time.Since(start).Round(time.Second))
	if run.Result.Voided != 0 || rank != 1 || first != "" {
		t.Errorf("%d games voided, the leader ranked %d (first fault %s); want none voided, the leader first and unharmed", run.Result.Voided, rank, first)
	}
}
