package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// SIGTERM to a daemon playing a run, with --log-format json: every line on stderr is JSON
// (the stop's own lines were plain text), nothing is logged as an error (the stop gave two
// "cycle failed" errors and "played … games 0"), the stopped run is logged as such with the
// games it had played, durations are seconds (they were nanoseconds), and the time zone
// has its name (it was "Local").
func TestRequestedStopIsInfoAndJSON(t *testing.T) {
	cfg := hostConfig(t, 200000, "")
	p := startKothd(t, "daemon", "--config", cfg, "--snapshot", hostSnapshot(t), "--log-format", "json")
	live := filepath.Join(filepath.Dir(cfg), "data", "live", "forty.json")
	deadline := time.Now().Add(3 * time.Minute)
	for { // until the run reports games done
		if b, err := os.ReadFile(live); err == nil && !strings.Contains(string(b), `"games_done":0,`) {
			break
		}
		if time.Now().After(deadline) {
			_, errs := p.output()
			t.Fatalf("no games under way within 3 minutes:\n%s", errs)
		}
		time.Sleep(200 * time.Millisecond)
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	if code := p.wait(t, 30*time.Second); code != 0 {
		t.Errorf("exit %d after SIGTERM", code)
	}
	_, errs := p.output()
	var stopped, zone bool
	for _, line := range strings.Split(strings.TrimSpace(errs), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Errorf("not JSON: %q", line)
			continue
		}
		if m["level"] == "ERROR" {
			t.Errorf("a requested stop logged an error: %s", line)
		}
		if e, ok := m["elapsed"].(float64); ok && e > 3600 {
			t.Errorf("elapsed %v: not in seconds: %s", e, line)
		}
		switch m["msg"] {
		case "played":
			t.Errorf("a stopped run logged as played: %s", line)
		case "scheduled":
			zone = m["timezone"] != "Local" && m["timezone"] != ""
		default:
			if strings.HasPrefix(m["msg"].(string), "run stopped on request") {
				stopped = m["games_done"].(float64) > 0 && m["run"].(float64) == 1
			}
		}
	}
	if !stopped || !zone {
		t.Errorf("stopped run logged with its games: %v; zone named: %v\n%s", stopped, zone, errs)
	}
}
