package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestKilledRunResumesFromCheckpoint: a forty run killed with SIGKILL in the middle is
// resumed by the next plain cycle at its last checkpoint (it says so, and plays only the
// rest), and ends with the standings of the same run played straight through (it used to
// start again from game 0). The field leaves out the answers whose bots draw from Python's
// random module: their generator lives in their process, which a resumed run starts anew.
func TestKilledRunResumesFromCheckpoint(t *testing.T) {
	const games, seed = "3000", "20261124"
	excluded := "    exclude: [FlipCoinRollDice, BlessRNG, BrainBot, EnsureLead]\n"
	cfg := withExclude(t, hostConfig(t, 100, ""), excluded)
	args := []string{"--config", cfg, "--snapshot", snapshotDir(t), "--challenge", "forty", "--games", games}

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
	resumedAt := -1
	for _, line := range strings.Split(out, "\n") {
		if i := strings.Index(line, "resuming run 1 at game "); i >= 0 {
			fmt.Sscanf(line[i:], "resuming run 1 at game %d of "+games, &resumedAt)
		}
	}
	if resumedAt < done {
		t.Fatalf("the cycle after the kill did not resume at game %d or later:\n%s", done, out)
	}

	ref := withExclude(t, hostConfig(t, 100, ""), excluded)
	refArgs := []string{"once", "--seed", seed, "--config", ref, "--snapshot", snapshotDir(t), "--challenge", "forty", "--games", games}
	q := startKothd(t, refArgs...)
	if code := q.wait(t, 5*time.Minute); code != 0 {
		out, errs := q.output()
		t.Fatalf("uninterrupted run: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}

	ctx := context.Background()
	st := openStore(t, cfg)
	resumed, _ := st.GetRun(ctx, 2)
	got, _ := st.Standings(ctx, 2)
	if cp, _ := st.LoadCheckpoint(ctx, 2); cp != nil {
		t.Error("the finished run kept its checkpoint")
	}
	st.Close()
	want, _ := openStore(t, ref).Standings(ctx, 1)
	if resumed == nil || resumed.State != "done" || resumed.GamesPlayed != 3000 {
		t.Fatalf("resumed run: %+v", resumed)
	}
	if len(got) == 0 || len(got) != len(want) {
		t.Fatalf("standings: %d rows resumed, %d straight", len(got), len(want))
	}
	// A call that timed out (a loaded machine) changes that decision: nothing to compare.
	if timedOut(got) || timedOut(want) {
		t.Skip("a call timed out in one of the runs; standings not compared")
	}
	if !reflect.DeepEqual(got, want) {
		for i := range got {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("rank %d: resumed %+v\nstraight %+v", i+1, got[i], want[i])
			}
		}
	}
}

// withExclude adds a line to the forty challenge of the config at path.
func withExclude(t *testing.T, path, line string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), "  - name: forty\n", "  - name: forty\n"+line, 1)
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
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
