package main

import (
	"context"
	"fmt"
	"net"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kothd/kothd/store"
)

// The cluster's tests play the host's forty field (hostSnapshot: five answers, none keeping
// state across games) with the embedded JetStream server, real `kothd worker` processes
// and real sandboxes, against the same run played without a cluster: same seed and shard
// size, same standings, whoever played which shard and whatever died on the way.
const clusterGames, clusterSeed, clusterShard = "3000", "20261126", 500

func TestClusterPlaysTheSameTable(t *testing.T) {
	snap := hostSnapshot(t)
	ref := hostConfig(t, 100, "")
	q := startKothd(t, "once", "--seed", clusterSeed, "--config", ref, "--snapshot", snap, "--challenge", "forty", "--games", clusterGames)
	if code := q.wait(t, 10*time.Minute); code != 0 {
		out, errs := q.output()
		t.Fatalf("run without a cluster: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	want := standingsOf(t, ref, 1)

	t.Run("two workers, none local", func(t *testing.T) {
		port := freePort(t)
		cfg := hostConfig(t, 100, clusterBlock(port, false))
		d := startKothd(t, "once", "--seed", clusterSeed, "--config", cfg, "--snapshot", snap, "--challenge", "forty", "--games", clusterGames)
		a := startWorker(t, port)
		b := startWorker(t, port)
		finish(t, d)
		sameStandings(t, standingsOf(t, cfg, 1), want)
		played := strings.Count(stderrOf(a), "shard played") + strings.Count(stderrOf(b), "shard played")
		if played < 6 {
			t.Errorf("the workers played %d shards, want at least 6\nA:\n%s\nB:\n%s", played, stderrOf(a), stderrOf(b))
		}
		out, _ := d.output()
		if !strings.Contains(out, "shards 0 queued, 0 in flight, 6 done") {
			t.Errorf("the progress line never counted 6 shards done:\n%s", out)
		}
	})

	t.Run("a worker killed mid-shard", func(t *testing.T) {
		port := freePort(t)
		cfg := hostConfig(t, 100, clusterBlock(port, false))
		d := startKothd(t, "once", "--seed", clusterSeed, "--config", cfg, "--snapshot", snap, "--challenge", "forty", "--games", clusterGames)
		a := startWorker(t, port)
		waitStderr(t, a, "shard taken", 5*time.Minute)
		a.cmd.Process.Signal(syscall.SIGKILL)
		a.wait(t, time.Minute)
		b := startWorker(t, port)
		finish(t, d)
		sameStandings(t, standingsOf(t, cfg, 1), want)
		if !strings.Contains(stderrOf(b), "attempt=2") {
			t.Errorf("the killed worker's shard was not handed out again:\n%s", stderrOf(b))
		}
	})

	t.Run("the daemon killed mid-run resumes", func(t *testing.T) {
		port := freePort(t)
		cfg := hostConfig(t, 100, clusterBlock(port, true))
		args := []string{"--config", cfg, "--snapshot", snap, "--challenge", "forty", "--games", clusterGames}
		d := startKothd(t, append([]string{"once", "--seed", clusterSeed}, args...)...)
		done := waitCheckpoint(t, d, cfg, clusterShard)
		d.cmd.Process.Signal(syscall.SIGKILL)
		d.wait(t, time.Minute)
		r := startKothd(t, append([]string{"once"}, args...)...)
		finish(t, r)
		out, _ := r.output()
		if !strings.Contains(out, fmt.Sprintf("resuming run 1 at game %d", done)) && !strings.Contains(out, "resuming run 1 at game ") {
			t.Fatalf("no resume after a kill at game %d:\n%s", done, out)
		}
		sameStandings(t, standingsOf(t, cfg, 2), want)
	})
}

func clusterBlock(port int, local bool) string {
	return fmt.Sprintf("cluster:\n  listen: 127.0.0.1:%d\n  local_worker: %v\n  shard_games: %d\n  ack_wait: 3s\n", port, local, clusterShard)
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func startWorker(t *testing.T, port int) *proc {
	t.Helper()
	w := startKothd(t, "worker", "--nats", fmt.Sprintf("nats://127.0.0.1:%d", port), "--data", t.TempDir())
	t.Cleanup(func() {
		w.cmd.Process.Signal(syscall.SIGTERM)
		w.wait(t, time.Minute)
	})
	return w
}

func finish(t *testing.T, p *proc) {
	t.Helper()
	if code := p.wait(t, 10*time.Minute); code != 0 {
		out, errs := p.output()
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
}

func stderrOf(p *proc) string {
	_, e := p.output()
	return e
}

func waitStderr(t *testing.T, p *proc, s string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if strings.Contains(stderrOf(p), s) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no %q within %s:\n%s", s, limit, stderrOf(p))
}

func standingsOf(t *testing.T, cfg string, run int64) []store.Standing {
	t.Helper()
	st := openStore(t, cfg)
	defer st.Close()
	r, _ := st.GetRun(context.Background(), run)
	if r == nil || r.State != "done" {
		t.Fatalf("run %d: %+v", run, r)
	}
	got, err := st.Standings(context.Background(), run)
	if err != nil || len(got) == 0 {
		t.Fatalf("standings of run %d: %v (%d rows)", run, err, len(got))
	}
	return got
}

func sameStandings(t *testing.T, got, want []store.Standing) {
	t.Helper()
	if timedOut(got) || timedOut(want) {
		t.Skip("a call timed out in one of the runs (a loaded machine): standings not compared")
	}
	if !reflect.DeepEqual(got, want) {
		for i := range got {
			if i >= len(want) || !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("rank %d: cluster %+v\nwithout %+v", i+1, got[i], want[i])
			}
		}
		if len(got) != len(want) {
			t.Errorf("%d rows, want %d", len(got), len(want))
		}
	}
}
