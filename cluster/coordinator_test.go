package cluster

import (
	"context"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/runner/protocol"
	"github.com/kothd/kothd/runner/sandbox"
)

// A shard that fails on every attempt fails the run with the shard, its games and the
// worker's reason, after max_deliver attempts: it never hangs the run, and nothing is
// folded.
func TestShardFailingEverywhereFailsTheRun(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cfg := &config.Config{DataDir: t.TempDir(), Python: "/usr/bin/python3", Sandbox: "none",
		Cluster: &config.Cluster{Listen: addr, MaxDeliver: 2, AckWait: config.Duration(5 * time.Second)}}
	sb, err := sandbox.NewSandboxCgroups("none", "off", slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	c, err := Start(context.Background(), cfg, sb, log)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// An engine no worker has: WorkerEnv fails on every attempt, as a broken worker would.
	ch := &config.Challenge{Name: "ghost", Engine: "no-such-engine"}
	env := &cron.PlayEnv{Env: protocol.Env{Challenge: ch, Config: cfg, Game: &engine.Game{Name: "no-such-engine"},
		Bots: []engine.Bot{{Entrant: engine.Entrant{Name: "A"}}, {Entrant: engine.Entrant{Name: "B"}}}}}
	folded := 0
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err = c.Play(ctx, &cron.ShardedRun{Env: env, RunID: 1, Shards: cron.CutShards(0, 10, 5, 1)}, func(int, *cron.ShardResult) error {
		folded++
		return nil
	})
	want := "failed on every attempt (2)"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "no-such-engine") {
		t.Fatalf("run ended with %v, want %q and the reason", err, want)
	}
	if folded != 0 {
		t.Errorf("%d shards folded", folded)
	}
	t.Log(err)
}

// A job carries the run's games in flight as resolved, not the challenge's setting: with
// none configured, a worker would otherwise play at its own build's default.
func TestJobCarriesTheRunsConcurrency(t *testing.T) {
	ch := &config.Challenge{Name: "forty", Engine: "forty"}
	env := &cron.PlayEnv{Env: protocol.Env{Challenge: ch, Config: &config.Config{}, Game: &engine.Game{Name: "forty", Concurrency: 777}}}
	env.SetRun(100, 1)
	b, err := jobChallenge(env)
	if err != nil {
		t.Fatal(err)
	}
	var got config.Challenge
	if err := yaml.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Concurrency != 777 {
		t.Errorf("the job's challenge says concurrency %d, want the run's 777:\n%s", got.Concurrency, b)
	}
	if ch.Concurrency != 0 {
		t.Errorf("the run's challenge was changed: concurrency %d", ch.Concurrency)
	}
}
