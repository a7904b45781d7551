package main

import (
	"context"
	"fmt"
	"net"
	"os"
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

// waitStderr waits until stderr contains s, failing as soon as the process ends without it.
func waitStderr(t *testing.T, p *proc, s string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if strings.Contains(stderrOf(p), s) {
			return
		}
		select {
		case <-p.done:
			if e := stderrOf(p); !strings.Contains(e, s) {
				t.Fatalf("kothd ended before %q: %v\nstderr:\n%s", s, p.waitErr, e)
			}
			return
		case <-time.After(50 * time.Millisecond):
		}
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

// Bank Heist (shards of whole tournaments) and Mafia (shards played one after another,
// each from the files the last one's bots kept) through two `kothd worker`s, none local:
// the same standings as the run played without a cluster. The fields are those of the
// resume tests (resume_games_test.go); Mafia's has Counter, whose votes follow a file it
// keeps across games, so its table equals the straight run's only if every shard started
// from the files the shard before it left.
func TestClusterPlaysBankHeistAndMafia(t *testing.T) {
	for _, c := range []struct {
		name, lines string
		snap        string
		shards      int
	}{
		{"bankheist", "    games: 40\n    options: {games_per_tournament: 10}\n",
			questionSnapshot(t, 115303, []int64{115321, 115412, 115577, 115601}, nil), 2},
		{"mafia", "    games: 3\n",
			questionSnapshot(t, 151341, []int64{151402, 151610}, map[int64]string{999001: counterBot}), 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			const seed = "20261126"
			ref := challengeConfig(t, c.name, c.lines)
			q := startKothd(t, "once", "--seed", seed, "--config", ref, "--snapshot", c.snap, "--challenge", c.name)

			port := freePort(t)
			// Bank Heist: two tournaments a shard (20 games); Mafia: a game a shard.
			block := fmt.Sprintf("cluster:\n  listen: 127.0.0.1:%d\n  local_worker: false\n  shard_games: %d\n  ack_wait: 10s\n", port, map[string]int{"bankheist": 20, "mafia": 1}[c.name])
			cfg := challengeConfig(t, c.name, c.lines)
			appendConfig(t, cfg, block)
			d := startKothd(t, "once", "--seed", seed, "--config", cfg, "--snapshot", c.snap, "--challenge", c.name)
			a := startWorker(t, port)
			b := startWorker(t, port)
			finish(t, d)
			finish(t, q)
			sameStandings(t, standingsOf(t, cfg, 1), standingsOf(t, ref, 1))
			played := strings.Count(stderrOf(a), "shard played") + strings.Count(stderrOf(b), "shard played")
			if played < c.shards {
				t.Errorf("the workers played %d shards, want %d\nA:\n%s\nB:\n%s", played, c.shards, stderrOf(a), stderrOf(b))
			}
		})
	}
}

// appendConfig adds a top-level block to the config file at path.
func appendConfig(t *testing.T, path, block string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(b, "\n"+block...), 0o644); err != nil {
		t.Fatal(err)
	}
}
