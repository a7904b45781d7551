package main

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/store"
)

// TestKilledRunResumesFromCheckpoint: a forty run killed with SIGKILL in the middle is
// resumed by the next plain cycle at its last checkpoint (it says so, and plays only the
// rest), and ends with the standings of the same run played straight through (it used to
// start again from game 0). The field is the hosts' five answers (hostSnapshot), none of
// which keeps state across games in its process: a resumed run starts the bots' processes
// anew, so such a bot (Python's process-wide random, class attributes) would decide
// differently than in the run played straight through.
func TestKilledRunResumesFromCheckpoint(t *testing.T) {
	const games, seed = "60000", "20261124" // long enough that the kill after 600 lands mid-run: with 32768 games in flight, 6000 finished together in 1.7 s, before a checkpoint could be seen
	snap := hostSnapshot(t)
	cfg := hostConfig(t, 100, "")
	args := []string{"--config", cfg, "--snapshot", snap, "--challenge", "forty", "--games", games}

	p := startKothd(t, append([]string{"once", "--seed", seed}, args...)...)
	p.waitFor(t, "forty: run 1, seed", 5*time.Minute)
	done := waitCheckpoint(t, p, cfg, 600)
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.wait(t, time.Minute)
	t.Logf("killed with a checkpoint after %d games", done)

	r := startKothd(t, append([]string{"once"}, args...)...)
	code := r.wait(t, 5*time.Minute)
	out, errs := r.output()
	if code != 0 {
		t.Fatalf("cycle after the kill: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if at, of := resumedAt(out); at < done || strconv.Itoa(of) != games {
		t.Fatalf("the cycle after the kill did not resume at game %d or later of %s:\n%s", done, games, out)
	}

	ref := hostConfig(t, 100, "")
	refArgs := []string{"once", "--seed", seed, "--config", ref, "--snapshot", snap, "--challenge", "forty", "--games", games}
	q := startKothd(t, refArgs...)
	if code := q.wait(t, 5*time.Minute); code != 0 {
		out, errs := q.output()
		t.Fatalf("uninterrupted run: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}

	resumedLikeStraight(t, cfg, ref)
}

// resumedLikeStraight checks that run 2 of cfg's store, resumed after a kill, ended done,
// without its checkpoint, with the games and the standings of run 1 of ref's store, the
// same run played straight.
func resumedLikeStraight(t *testing.T, cfg, ref string) {
	t.Helper()
	ctx := context.Background()
	st := openStore(t, cfg)
	resumed, _ := st.GetRun(ctx, 2)
	got, _ := st.Standings(ctx, 2)
	if cp, _ := st.LoadCheckpoint(ctx, 2); cp != nil {
		t.Error("the finished run kept its checkpoint")
	}
	rs := openStore(t, ref)
	straight, _ := rs.GetRun(ctx, 1)
	want, _ := rs.Standings(ctx, 1)
	// Games played or voided: a game voided by a host fault is in neither table.
	if resumed == nil || resumed.State != "done" || straight == nil || straight.State != "done" ||
		resumed.GamesPlayed+voided(resumed) != straight.GamesPlayed+voided(straight) {
		t.Fatalf("resumed run: %+v\nstraight run: %+v", resumed, straight)
	}
	// A game voided (on a loaded machine: a sandbox that could not start in time) is
	// missing from one table only: nothing to compare.
	if v := voided(resumed) + voided(straight); v > 0 {
		t.Skipf("%d games voided by host faults in the two runs; standings not compared", v)
	}
	if len(got) == 0 || len(got) != len(want) {
		t.Fatalf("standings: %d rows resumed, %d straight", len(got), len(want))
	}
	// A call that timed out (a loaded machine) changes that decision: nothing to compare.
	if timedOut(got) || timedOut(want) {
		t.Skip("a call timed out in one of the runs; standings not compared")
	}
	for i := range got {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("rank %d: resumed %+v\nstraight %+v", i+1, got[i], want[i])
		}
	}
}

// waitCheckpoint waits until the running kothd p has committed a checkpoint of at least
// min games, and returns its game count.
func waitCheckpoint(t *testing.T, p *proc, cfg string, min int) int {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(filepath.Dir(cfg), "data", "kothd.db")+"?mode=ro&_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		var done sql.NullInt64
		db.QueryRow(`SELECT MAX(done) FROM run_checkpoints`).Scan(&done)
		if int(done.Int64) >= min {
			return int(done.Int64)
		}
		select {
		case <-p.done:
			out, errs := p.output()
			t.Fatalf("kothd ended before a checkpoint of %d games\nstdout:\n%s\nstderr:\n%s", min, out, errs)
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("no checkpoint of %d games within 5 minutes", min)
	return 0
}

// voided is the number of a run's games voided by host faults.
func voided(r *store.Run) int {
	if r == nil || r.Result == nil {
		return 0
	}
	return r.Result.Voided
}

// timedOut reports whether any bot of a run had a call time out.
func timedOut(st []store.Standing) bool {
	for _, s := range st {
		if s.Faults[engine.Timeout] > 0 {
			return true
		}
	}
	return false
}

// resumedAt reads where a cycle's output says run 1 resumed ("resuming run 1 at game K of
// M"): K and M, or -1 and 0 when it did not.
func resumedAt(out string) (at, of int) {
	at = -1
	for _, line := range strings.Split(out, "\n") {
		if i := strings.Index(line, "resuming run 1 at game "); i >= 0 {
			fmt.Sscanf(line[i:], "resuming run 1 at game %d of %d", &at, &of)
		}
	}
	return at, of
}
