package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/store"
)

// TestHostKeepsTheBoard walks one host through what months alone bring, each step a real
// kothd process on the bundled snapshot, where the API (the snapshot's probe) shows no
// activity after the first cycle:
//
//   - preflight: a missing python stops the cycle with a clear message and exit 1 before
//     anything is played; the published board stays (it used to be replaced by a board of
//     baselines, "every answer failed validation", exit 0);
//   - a run killed with SIGKILL is played again with its seed by the next plain cycle
//     (it used to be forgotten: the probe saw no activity);
//   - a finished run whose board was never stored is played again and published;
//   - a publication that never happened is made by the next cycle;
//   - scratch copies a killed run left are removed at start;
//   - a zero-length database does not overwrite the published board of a later run
//     unless --allow-older-board says so.
func TestHostKeepsTheBoard(t *testing.T) {
	ctx := context.Background()
	cfg := hostConfig(t, 1500, "")
	dir := filepath.Dir(cfg)
	if code, out, errs := once(t, cfg); code != 0 {
		t.Fatalf("first cycle: exit %d\n%s\n%s", code, out, errs)
	}
	run1, _, board1 := publishedBoard(t, cfg)
	if run1 != 1 {
		t.Fatalf("first board is of run %d", run1)
	}

	// Preflight: python pointing at nothing.
	bad := filepath.Join(dir, "bad.yaml")
	b, _ := os.ReadFile(cfg)
	os.WriteFile(bad, bytes.Replace(b, []byte("python: /usr/bin/python3 "), []byte("python: /usr/bin/python3.99 "), 1), 0o644)
	code, out, errs := once(t, bad, "--force")
	if code == 0 || !strings.Contains(errs, "preflight failed") || !strings.Contains(errs, "python3.99") {
		t.Errorf("missing python: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if _, _, now := publishedBoard(t, cfg); !bytes.Equal(now, board1) {
		t.Error("the board changed after a failed preflight")
	}

	// A run killed in the middle: the next cycle plays it again with its seed.
	p := startKothd(t, "once", "--config", cfg, "--snapshot", snapshotDir(t), "--challenge", "forty", "--force")
	p.waitFor(t, "forty: run 2, seed", 5*time.Minute)
	time.Sleep(3 * time.Second)
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.wait(t, time.Minute)
	st := openStore(t, cfg)
	killed, err := st.GetRun(ctx, 2)
	st.Close()
	if err != nil || killed == nil || killed.State != "running" {
		t.Fatalf("killed run: %+v %v", killed, err)
	}
	stale := filepath.Join(dir, "data", "work", "run-stale")
	if err := os.MkdirAll(filepath.Join(stale, "0-bot"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errs = once(t, cfg)
	if code != 0 || !strings.Contains(out, "run 2 was interrupted") {
		t.Fatalf("cycle after a kill: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if run, seed, _ := publishedBoard(t, cfg); run != 3 || seed != killed.Seed {
		t.Errorf("after the kill: board of run %d seed %d, want run 3 with the killed run's seed %d", run, seed, killed.Seed)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("a stale work copy survived the start: %v", err)
	}
	st = openStore(t, cfg)
	if r, _ := st.GetRun(ctx, 2); r == nil || r.State != "interrupted" || !strings.Contains(r.Error, "killed") {
		t.Errorf("the killed run is recorded as %+v", r)
	}
	want, _ := st.Standings(ctx, 3)
	st.Close()

	// A finished run whose board was never stored: played again, same standings.
	sqlExec(t, cfg, `UPDATE runs SET board = NULL WHERE id = 3`)
	code, out, errs = once(t, cfg)
	if run, seed, _ := publishedBoard(t, cfg); code != 0 || run != 4 || seed != killed.Seed {
		t.Fatalf("board never stored: exit %d, board of run %d seed %d\nstdout:\n%s\nstderr:\n%s", code, run, seed, out, errs)
	}
	st = openStore(t, cfg)
	got, _ := st.Standings(ctx, 4)
	st.Close()
	if len(got) == 0 || len(got) != len(want) {
		t.Fatalf("standings of run 4: %d rows, want %d", len(got), len(want))
	}
	// Same seed, same bots: same table, unless a call timed out (a loaded machine), which
	// changes that decision and, through bots' state, later ones.
	if timedOut(got) || timedOut(want) {
		t.Log("a call timed out in run 3 or 4; standings not compared")
	} else {
		for i := range got {
			if got[i].Bot != want[i].Bot || got[i].Score != want[i].Score || got[i].Wins != want[i].Wins {
				t.Errorf("rank %d: run 4 %+v, run 3 %+v", i+1, got[i], want[i])
			}
		}
	}

	// A publication that never happened (failed, or lost with the output directory).
	sqlExec(t, cfg, `DELETE FROM publications`)
	os.Remove(filepath.Join(dir, "leaderboards", "forty.json"))
	os.Remove(filepath.Join(dir, "leaderboards", "forty.md"))
	code, out, errs = once(t, cfg)
	if run, _, _ := publishedBoard(t, cfg); code != 0 || run != 4 {
		t.Fatalf("unpublished board: exit %d, board of run %d\nstdout:\n%s\nstderr:\n%s", code, run, out, errs)
	}
	_, _, board4 := publishedBoard(t, cfg)

	// The database lost (zero length): the board of run 4 is not replaced by run 1's.
	if err := os.Truncate(filepath.Join(dir, "data", "kothd.db"), 0); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "data", "kothd.db-wal"))
	os.Remove(filepath.Join(dir, "data", "kothd.db-shm"))
	code, out, errs = once(t, cfg)
	if code == 0 || !strings.Contains(errs, "--allow-older-board") {
		t.Errorf("fresh database over a later board: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if _, _, now := publishedBoard(t, cfg); !bytes.Equal(now, board4) {
		t.Fatal("a fresh database replaced the published board of a later run")
	}
	code, out, errs = once(t, cfg, "--allow-older-board")
	if run, _, _ := publishedBoard(t, cfg); code != 0 || run != 1 {
		t.Errorf("--allow-older-board: exit %d, board of run %d\nstdout:\n%s\nstderr:\n%s", code, run, out, errs)
	}
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

// TestEveryAnswerFailingAlikeIsTheHosts: a python that runs (so the preflight passes) but
// cannot run the harness makes every answer fail validation the same way: that is the
// host's fault, so nothing is played, the board stays and the exit is 1 (it used to publish
// a board of baselines, exit 0).
func TestEveryAnswerFailingAlikeIsTheHosts(t *testing.T) {
	py2 := "/root/.pyenv/versions/2.7.18/bin/python2.7"
	if _, err := os.Stat(py2); err != nil {
		t.Skip("no python 2 here to stand for a wrong interpreter")
	}
	cfg := hostConfig(t, 200, "")
	if code, out, errs := once(t, cfg); code != 0 {
		t.Fatalf("first cycle: exit %d\n%s\n%s", code, out, errs)
	}
	_, _, board := publishedBoard(t, cfg)
	b, _ := os.ReadFile(cfg)
	b = bytes.Replace(b, []byte("python: /usr/bin/python3 "), []byte("python: "+py2+" "), 1)
	b = append(b, []byte("\npython_imports: []\n")...)
	os.WriteFile(cfg, b, 0o644)
	code, out, errs := once(t, cfg, "--force")
	if code == 0 || !strings.Contains(errs, "failed it the same way") {
		t.Errorf("wrong interpreter: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if _, _, now := publishedBoard(t, cfg); !bytes.Equal(now, board) {
		t.Error("the board changed")
	}
}
