package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bench and replay publish nothing, so the host's publication targets play no part: with
// GitHub configured and no GITHUB_TOKEN, and the output directory holding a board of a
// later run than bench's scratch store has (a host with published runs), both work. bench
// refused ("pass --allow-older-board", a flag it lacks) and both demanded the token.
func TestBenchAndReplayLeaveTheHostsTargetsAlone(t *testing.T) {
	cfg := hostConfig(t, 20, "")
	if code, out, errs := once(t, cfg); code != 0 {
		t.Fatalf("first cycle: exit %d\n%s\n%s", code, out, errs)
	}
	b, _ := os.ReadFile(cfg)
	s := strings.Replace(strings.Replace(string(b), "  owner: \"\"", "  owner: o", 1), "  repo: \"\"", "  repo: r", 1)
	if err := os.WriteFile(cfg, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GITHUB_TOKEN", "")
	board := filepath.Join(filepath.Dir(cfg), "leaderboards", "forty.json")
	published := []byte(`{"run": {"id": 7, "date": "2026-01-01T00:00:00Z"}}`)
	if err := os.WriteFile(board, published, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := kothd(t, "replay", "1", "0", "--config", cfg); code != 0 {
		t.Errorf("replay without GITHUB_TOKEN: exit %d\n%s\n%s", code, out, errs)
	}
	if code, out, errs := kothd(t, "bench", "forty", "--config", cfg, "--snapshot", oneBotSnapshot(t), "--games", "10", "--no-yardstick"); code != 0 {
		t.Errorf("bench on a host with published runs and GitHub: exit %d\n%s\n%s", code, out, errs)
	}
	if now, _ := os.ReadFile(board); string(now) != string(published) {
		t.Errorf("the host's board was touched: %s", now)
	}
}
