package main

import (
	"strings"
	"testing"

	"github.com/kothd/kothd/internal/httpclient/httpclienttest"
	"github.com/kothd/kothd/publisher/fakegithub"
)

// A GitHub that accepts connections and never answers does not stop play: its check gives
// up at the configured deadline, the board goes to the directory, GitHub is not tried a
// second time in the cycle, and once exits 1 naming it (it used to stop at the preflight,
// nothing played).
func TestUnresponsiveGitHubDoesNotStopPlay(t *testing.T) {
	t.Setenv("GITHUB_TOKEN", "tok")
	cfg := testConfig(t, "github:\n  owner: o\n  repo: r\n  base_url: "+httpclienttest.Unresponsive(t)+"\n  deadline: 3s\n")
	code, out, errOut := kothd(t, "once", "--config", cfg, "--snapshot", oneBotSnapshot(t), "--challenge", "forty", "--games", "10")
	if code != 1 || !strings.Contains(errOut, "deadline of 3s") || !strings.Contains(errOut, "GitHub did not answer") || !strings.Contains(errOut, "the next cycle retries") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "leaderboard written to") {
		t.Errorf("no board in the directory:\n%s", out)
	}
}

// A GitHub that stops answering after the preflight: kothd plays, keeps the board in the
// directory, and fails the publication at the deadline instead of hanging.
func TestGitHubHangingDuringPublicationFailsAtTheDeadline(t *testing.T) {
	gh := fakegithub.New()
	defer gh.Close()
	gh.Fail(fakegithub.Hang().On("POST", "/git/trees"))
	t.Setenv("GITHUB_TOKEN", gh.Token())
	cfg := testConfig(t, "github:\n  owner: o\n  repo: r\n  base_url: "+gh.BaseURL()+"\n  deadline: 3s\n")
	code, out, errOut := kothd(t, "once", "--config", cfg, "--snapshot", oneBotSnapshot(t), "--challenge", "forty", "--games", "10")
	if code == 0 || !strings.Contains(errOut, "github:o/r@main/") || !strings.Contains(errOut, "deadline of 3s") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "leaderboard written to") || len(gh.History("main")) != 1 {
		t.Errorf("directory board missing, or a commit made:\n%s", out)
	}
}

// oneBotSnapshot is the bundled forty snapshot cut to its first two answers: a tournament in
// seconds.
func oneBotSnapshot(t *testing.T) string { return fortySnapshot(t, 177771, 177786) }

// A token GitHub rejects does not stop play either: the board goes to the directory, no
// commit is made, and once exits 1 with what to do about the token.
func TestBadTokenPlaysAndSaysSo(t *testing.T) {
	gh := fakegithub.New()
	defer gh.Close()
	t.Setenv("GITHUB_TOKEN", "ghp_expired")
	cfg := testConfig(t, "github:\n  owner: o\n  repo: r\n  base_url: "+gh.BaseURL()+"\n")
	code, out, errOut := kothd(t, "once", "--config", cfg, "--snapshot", oneBotSnapshot(t), "--challenge", "forty", "--games", "10")
	if code != 1 || !strings.Contains(errOut, "GITHUB_TOKEN is wrong, expired or revoked") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "leaderboard written to") || len(gh.History("main")) != 1 {
		t.Errorf("no directory board, or a commit made despite the bad token:\n%s", out)
	}
}
