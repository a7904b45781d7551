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
)

// TestHostKeepsTheBoard walks one host through what months alone bring, each step a real
// kothd process on five answers of the bundled snapshot, where the API (the probe) shows no
// activity after the first cycle:
//
//   - preflight: a missing python stops the cycle with a clear message and exit 1 before
//     anything is played; the published board stays (it used to be replaced by a board of
//     baselines, "every answer failed validation", exit 0);
//   - a run killed with SIGKILL is played again with its seed by the next plain cycle
//     (it used to be forgotten: the probe saw no activity);
//   - a publication that never happened is made by the next cycle;
//   - scratch copies a killed run left are removed at start.
//
// What a cycle does about lost state without a killed process is tested on the fake game
// in cron (a board never stored, a lost database: cron/keep_test.go): each cycle here is a
// real tournament.
func TestHostKeepsTheBoard(t *testing.T) {
	ctx := context.Background()
	cfg := hostConfig(t, 40000, "") // a run of seconds: long enough to be killed in the middle on a fast machine (1,500 games once ended between the first progress line and the kill; with the C batch loop, 10,000 take about two seconds)
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
	p := startKothd(t, "once", "--config", cfg, "--snapshot", hostSnapshot(t), "--challenge", "forty", "--force")
	p.waitFor(t, "forty: games ", 5*time.Minute) // the first progress line: games under way, not all done
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
	st.Close()

	// A publication that never happened (failed, or lost with the output directory).
	sqlExec(t, cfg, `DELETE FROM publications`)
	os.Remove(filepath.Join(dir, "leaderboards", "forty.json"))
	os.Remove(filepath.Join(dir, "leaderboards", "forty.md"))
	code, out, errs = once(t, cfg)
	if run, _, _ := publishedBoard(t, cfg); code != 0 || run != 3 || strings.Contains(out, "run 4") {
		t.Fatalf("unpublished board: exit %d, board of run %d\nstdout:\n%s\nstderr:\n%s", code, run, out, errs)
	}
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
