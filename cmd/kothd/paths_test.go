package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runIn runs kothd to its end with dir as the working directory.
func runIn(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	p := &proc{cmd: exec.Command(kothdBin(t), args...), done: make(chan struct{})}
	p.cmd.Dir = dir
	p.cmd.Stdout = lockedWriter{&p.mu, &p.out}
	p.cmd.Stderr = lockedWriter{&p.mu, &p.err}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.waitErr = p.cmd.Wait(); close(p.done) }()
	code := p.wait(t, 10*time.Minute)
	out, errs := p.output()
	return code, out, errs
}

// The same host under another spelling of its paths is the same host: `once --config
// config.yaml` in its directory, then the same config by an absolute path with a dot in it
// from /, then the whole directory restored to another place, play one run between them
// (the second and third used to play runs 2 and 3 with fresh seeds: the bot-set hash
// covered each bot's directory path, and the data directory was relative to the working
// directory).
func TestPathSpellingPlaysNoNewRun(t *testing.T) {
	cfg := hostConfig(t, 200, "")
	dir := filepath.Dir(cfg)
	snap := hostSnapshot(t)
	code, out, errs := runIn(t, dir, "once", "--config", "config.yaml", "--snapshot", snap, "--challenge", "forty")
	if code != 0 || !strings.Contains(out, "forty: run 1,") {
		t.Fatalf("first cycle: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	code, out, errs = runIn(t, "/", "once", "--config", filepath.Join(dir, ".", "config.yaml"), "--snapshot", snap, "--challenge", "forty")
	if code != 0 || strings.Contains(out, "run 2") {
		t.Errorf("the same config by its absolute path played again: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	moved := filepath.Join(t.TempDir(), "restored")
	if b, err := exec.Command("cp", "-a", dir, moved).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, b)
	}
	code, out, errs = runIn(t, "/", "once", "--config", filepath.Join(moved, "config.yaml"), "--snapshot", snap, "--challenge", "forty")
	if code != 0 || strings.Contains(out, "run 2") {
		t.Errorf("the host restored elsewhere played again: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if run, _, _ := publishedBoard(t, filepath.Join(moved, "config.yaml")); run != 1 {
		t.Errorf("restored host's board is of run %d, want 1", run)
	}
}
