package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kothd/kothd/publisher/fakegithub"
)

// outageConfig is a sandbox-less host with only forty (20 games a run) publishing to the
// fake GitHub gh with a short deadline.
func outageConfig(t *testing.T, gh *fakegithub.Server) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.yaml")
	body := awaySchedule(12, 0) + "\nsandbox: none\nchallenges:\n  - {name: forty, question_id: 177765, engine: forty, games: 20}\n" +
		"github:\n  owner: o\n  repo: r\n  base_url: " + gh.BaseURL() + "\n  deadline: 2s\n"
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// GitHub answering 502 for longer than any retry: once plays, writes the board to the
// directory, exits 1 naming GitHub, and status shows the failure; when GitHub is back, the
// next once (nothing new on the question) publishes the kept board there. It used to stop
// at the preflight with nothing played.
func TestGitHubOutageDoesNotStopPlay(t *testing.T) {
	gh := fakegithub.New()
	defer gh.Close()
	down := fakegithub.ServerError(502)
	gh.SetOutage(&down)
	t.Setenv("GITHUB_TOKEN", gh.Token())
	cfg := outageConfig(t, gh)
	snap := oneBotSnapshot(t)
	code, out, errOut := kothd(t, "once", "--config", cfg, "--snapshot", snap)
	if code != 1 || !strings.Contains(errOut, "publication to github:o/r@main/") || !strings.Contains(errOut, "the next cycle retries") {
		t.Fatalf("once with GitHub down: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(cfg), "leaderboards", "forty.md")); err != nil || !strings.Contains(out, "leaderboard written to") {
		t.Fatalf("no directory board while GitHub was down (%v):\n%s", err, out)
	}
	if _, sout, _ := kothd(t, "status", "--config", cfg); !strings.Contains(sout, "github:o/r@main/: FAILED") {
		t.Errorf("status does not show the failed target:\n%s", sout)
	}
	gh.SetOutage(nil)
	code, out, errOut = kothd(t, "once", "--config", cfg, "--snapshot", snap)
	if code != 0 || len(gh.History("main")) != 2 || !strings.Contains(out, "leaderboard written to github:o/r@main/") {
		t.Fatalf("once after GitHub came back: exit %d, %d commits\nstdout:\n%s\nstderr:\n%s", code, len(gh.History("main")), out, errOut)
	}
	if strings.Contains(out, "run 2") {
		t.Errorf("played again instead of publishing the kept board:\n%s", out)
	}
}

// The daemon with GitHub down from the start: it stays up, plays what is due, writes the
// board to the directory and logs the failed publication as such, not as a failed cycle
// (it used to exit 1 at start, and under Restart=on-failure restart every 30 s).
func TestDaemonPlaysThroughGitHubOutage(t *testing.T) {
	gh := fakegithub.New()
	defer gh.Close()
	down := fakegithub.ServerError(502)
	gh.SetOutage(&down)
	t.Setenv("GITHUB_TOKEN", gh.Token())
	cfg := outageConfig(t, gh)
	p := startKothd(t, "daemon", "--config", cfg, "--snapshot", oneBotSnapshot(t))
	board := filepath.Join(filepath.Dir(cfg), "leaderboards", "forty.md")
	deadline := time.Now().Add(3 * time.Minute)
	for {
		_, errs := p.output()
		if _, err := os.Stat(board); err == nil && strings.Contains(errs, "tick done") {
			break
		}
		select {
		case <-p.done:
			out, errs := p.output()
			t.Fatalf("daemon exited with GitHub down: %v\nstdout:\n%s\nstderr:\n%s", p.waitErr, out, errs)
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no board within 3 minutes:\n%s", errs)
		}
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	code := p.wait(t, 30*time.Second)
	_, errs := p.output()
	if code != 0 {
		t.Errorf("exit %d after SIGTERM", code)
	}
	if strings.Contains(errs, "cycle failed") || !strings.Contains(errs, "publish failed") || !strings.Contains(errs, "some publications failed") {
		t.Errorf("log does not tell a failed publication from a failed cycle:\n%s", errs)
	}
}
