package main

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// TestClusterMeasure measures what docs/cluster.md reports: a forty run played directly,
// through the cluster with only the daemon's own worker, and with 1 and 2 `kothd worker`
// processes on separate data directories. A measurement, not a check: it runs only with
// KOTHD_CLUSTER_MEASURE=1 and asserts nothing about speed.
func TestClusterMeasure(t *testing.T) {
	if os.Getenv("KOTHD_CLUSTER_MEASURE") == "" {
		t.Skip("set KOTHD_CLUSTER_MEASURE=1 to measure the cluster's costs")
	}
	games := "20000"
	if g := os.Getenv("KOTHD_CLUSTER_GAMES"); g != "" {
		games = g
	}
	rounds := 1
	if os.Getenv("KOTHD_CLUSTER_ROUNDS") == "2" {
		rounds = 2
	}
	snap := hostSnapshot(t)
	elapsed := regexp.MustCompile(`forty: \d+ games in ([0-9.hms]+) `)
	measure := func(name, extra string, workers int) {
		cfg := hostConfig(t, 100, extra)
		d := startKothd(t, "once", "--seed", clusterSeed, "--config", cfg, "--snapshot", snap, "--challenge", "forty", "--games", games)
		port := 0
		if extra != "" {
			fmt.Sscanf(extra, "cluster:\n  listen: 127.0.0.1:%d", &port)
		}
		for range workers {
			startWorker(t, port)
		}
		start := time.Now()
		finish(t, d)
		out, _ := d.output()
		m := elapsed.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("%s: no run time in\n%s", name, out)
		}
		dur, err := time.ParseDuration(m[1])
		if err != nil {
			t.Fatal(err)
		}
		s := dur.Seconds()
		t.Logf("MEASURE %-28s run %7.2f s  (process %6.1f s)", name, s, time.Since(start).Seconds())
	}
	shard := 10000
	if g := os.Getenv("KOTHD_CLUSTER_SHARD"); g != "" {
		shard, _ = strconv.Atoi(g)
	}
	block := func(local bool) string {
		return fmt.Sprintf("cluster:\n  listen: 127.0.0.1:%d\n  local_worker: %v\n  shard_games: %d\n", freePort(t), local, shard)
	}
	for round := range rounds {
		measure(fmt.Sprintf("direct #%d", round+1), "", 0)
		measure(fmt.Sprintf("cluster, daemon only #%d", round+1), block(true), 0)
	}
	measure("cluster, 1 worker", block(false), 1)
	measure("cluster, 2 workers", block(false), 2)
}
