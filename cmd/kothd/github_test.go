package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kothd/httpclient/httpclienttest"
)

// A GitHub that accepts connections and never answers: kothd plays, keeps the board in
// the directory, and fails the publication within the configured deadline with a message
// saying so, instead of hanging.
func TestUnresponsiveGitHubFailsWithinTheDeadline(t *testing.T) {
	t.Setenv("GITHUB_TOKEN", "tok")
	cfg := testConfig(t, "github:\n  owner: o\n  repo: r\n  base_url: "+httpclienttest.Unresponsive(t)+"\n  deadline: 3s\n")
	start := time.Now()
	code, out, errOut := kothd(t, "once", "--config", cfg, "--snapshot", oneBotSnapshot(t), "--challenge", "forty", "--games", "10")
	took := time.Since(start)
	if code == 0 || !strings.Contains(errOut+out, "github:o/r@main/") || !strings.Contains(errOut+out, "deadline of 3s") {
		t.Fatalf("exit %d after %s\nstdout:\n%s\nstderr:\n%s", code, took, out, errOut)
	}
	if !strings.Contains(out, "leaderboard written to") {
		t.Errorf("the directory did not get the board:\n%s", out)
	}
	t.Logf("failed after %s: %s", took, errOut)
}

// oneBotSnapshot is the bundled forty snapshot cut to its first two answers: a tournament in
// seconds.
func oneBotSnapshot(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../testdata/snapshot/codegolf/177765/answers.1.json")
	if err != nil {
		t.Fatal(err)
	}
	var page map[string]any
	if err := json.Unmarshal(b, &page); err != nil {
		t.Fatal(err)
	}
	page["items"] = page["items"].([]any)[:2]
	page["has_more"] = false
	dir := t.TempDir()
	q := filepath.Join(dir, "codegolf", "177765")
	if err := os.MkdirAll(q, 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(page)
	if err := os.WriteFile(filepath.Join(q, "answers.1.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
