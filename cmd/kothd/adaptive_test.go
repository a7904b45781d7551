package main

import (
	"strings"
	"testing"
)

// adaptive: is checked against the build's engines: one that cannot stop early (Ruins does
// not play in batches) is refused with the place and the reason; the forty game takes it.
func TestConfigAdaptiveChecked(t *testing.T) {
	cfg := testConfig(t, "  - name: dungeon\n    question_id: 999999\n    engine: ruins\n    games: 20\n    adaptive: {confidence: 0.9}\n")
	code, _, errOut := kothd(t, "status", "--config", cfg)
	if code != 1 || !strings.Contains(errOut, cfg+`:9: challenge dungeon: the ruins engine does not play in batches, so it cannot stop early`) {
		t.Errorf("ruins: exit %d, %q", code, errOut)
	}
	cfg = testConfig(t, "  - name: dice\n    question_id: 177765\n    engine: forty\n    games: 100000\n    adaptive: {batch: 10000, min_games: 20000}\n")
	if code, _, errOut := kothd(t, "status", "--config", cfg); strings.Contains(errOut, "adaptive") {
		t.Errorf("forty: exit %d, %q", code, errOut)
	}
}
