package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// A challenge hosted by its referee plays in a cluster of two workers, neither of them the
// daemon's: each job carries the referee (its directory through the object store, its
// command), the workers have no config and no languages table, and the table is the one a
// run without a cluster gives with the same seed.
func TestClusterPlaysARefereeChallenge(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(root, "engine", "referee", "testdata", "snapshot")
	challenge := `  - name: rps
    question_id: 900001
    engine: referee
    games: 12
    extract: {mode: first-block, language: python3, max_bytes: 65536}
    limits: {call_timeout: 20s, start_timeout: 60s, memory_mb: 512, procs: 16}
    options:
      referee: {dir: ` + filepath.Join(root, "engine", "referee", "examples", "rps") + `, language: python3, file: referee.py}
      shape: random
      seats: 2
      settings: {rounds: 5}
`
	const seed = "20261129"
	ref := hostDir(t, challenge)
	q := startKothd(t, "once", "--seed", seed, "--config", ref, "--snapshot", snap, "--challenge", "rps")

	port := freePort(t)
	cfg := hostDir(t, challenge)
	appendConfig(t, cfg, fmt.Sprintf("cluster:\n  listen: 127.0.0.1:%d\n  local_worker: false\n  shard_games: 4\n  ack_wait: 10s\n", port))
	d := startKothd(t, "once", "--seed", seed, "--config", cfg, "--snapshot", snap, "--challenge", "rps")
	a := startWorker(t, port)
	b := startWorker(t, port)
	finish(t, d)
	finish(t, q)
	sameStandings(t, standingsOf(t, cfg, 1), standingsOf(t, ref, 1))
	if played := strings.Count(stderrOf(a), "shard played") + strings.Count(stderrOf(b), "shard played"); played < 3 {
		t.Errorf("the workers played %d shards, want 3\nA:\n%s\nB:\n%s", played, stderrOf(a), stderrOf(b))
	}
}
