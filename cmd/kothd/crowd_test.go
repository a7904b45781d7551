package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
)

// hogBot is a forty answer whose __init__ runs line (after the Bot's own), with %[1]s its
// class's name.
func hogBot(name, line string) string {
	return fmt.Sprintf(`<h1>%[1]s</h1>

<pre><code>class %[1]s(Bot):
    kept = []

    def __init__(self, *args):
        super().__init__(*args)
        `+line+`

    def make_throw(self, scores, last_round):
        while sum(self.current_throws) &lt; 20:
            yield True
        yield False
</code></pre>
`, name)
}

// A Python-class bot serves every game in flight from one process under one memory_mb. An
// answer that keeps 40 MB a game fits the original controller (one game at a time) but
// not 40 games at once: the run is played again with 2 in flight (40/16), and the board
// shows the answer without a fault. One whose class keeps 32 MB more with every game runs
// out however few games are in flight: the run is played at 2 and then at 1, the last
// attempt (cron.maxRestarts), where the faults are the answer's own and counted. One that
// only says it ran out (raises MemoryError with 17 games in flight, using next to nothing)
// is charged at once: the host saw no memory limit.
func TestCrowdedBotGetsFewerGamesInFlight(t *testing.T) {
	for _, c := range []struct {
		name     string
		line     string
		from, to int
		restarts int
		faults   bool
	}{
		{"Hog40MB", "self.table = [0] * 5_000_000", 256, 2, 1, false},
		{"Leak32MB", "Leak32MB.kept.append([0] * 4_000_000)", 4096, 1, 2, true},
		{"Sly", "Sly.kept.append(0)\n        if len(Sly.kept) > 16: raise MemoryError()", 256, 256, 0, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			snap := questionSnapshot(t, 177765, []int64{177771, 177786}, map[int64]string{999101: hogBot(c.name, c.line)})
			cfg := challengeConfig(t, "forty", "    games: 40\n")
			b, _ := os.ReadFile(cfg)
			s := strings.Replace(string(b), "    concurrency: 32768", fmt.Sprintf("    concurrency: %d", c.from), 1)
			if s == string(b) {
				t.Fatal("config.yaml: forty has no concurrency line")
			}
			if err := os.WriteFile(cfg, []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
			p := startKothd(t, "once", "--seed", "7", "--config", cfg, "--snapshot", snap, "--challenge", "forty")
			code := p.wait(t, 10*time.Minute)
			out, errs := p.output()
			if code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
			}
			if n := strings.Count(out, "playing run 1 again from its first game"); n != c.restarts ||
				(n > 0) != strings.Contains(out, c.name+" ran out of memory") {
				t.Errorf("%d restarts naming %s, want %d:\n%s", n, c.name, c.restarts, out)
			}
			md, _ := os.ReadFile(filepath.Join(filepath.Dir(cfg), "leaderboards", "forty.md"))
			if n := strings.Count(string(md), "Played again with "); n != c.restarts ||
				c.restarts > 0 && !strings.Contains(string(md), fmt.Sprintf("Played again with %d game", c.to)) {
				t.Errorf("the board tells of %d restarts, want %d, the last to %d in flight:\n%s", n, c.restarts, c.to, md)
			}
			if last := strings.Contains(out, "the last attempt"); last != (c.restarts == 2) {
				t.Errorf("the last attempt said: %v, want %v:\n%s", last, c.restarts == 2, out)
			}
			st := openStore(t, cfg)
			defer st.Close()
			ctx := context.Background()
			run, _ := st.GetRun(ctx, 1)
			if run == nil || run.State != "done" || run.Concurrency != c.to || run.GamesPlayed != 40 {
				t.Fatalf("run 1: %+v; want done, 40 games, %d in flight", run, c.to)
			}
			if cp, _ := st.LoadCheckpoint(ctx, 1); cp != nil {
				t.Error("the finished run kept a checkpoint")
			}
			rows, _ := st.Standings(ctx, 1)
			found := false
			for _, r := range rows {
				if r.Bot != c.name {
					if r.Errors > 0 {
						t.Errorf("%s has faults: %+v", r.Bot, r)
					}
					continue
				}
				found = true
				if got := r.Faults[engine.MemoryLimit] > 0; got != c.faults || r.Played == 0 {
					t.Errorf("%s: %+v; want memory faults %v", c.name, r, c.faults)
				}
			}
			if !found {
				t.Fatalf("%s is not on the board: %+v", c.name, rows)
			}
		})
	}
}

// Through the cluster: the worker stops its shard at the crowded bot and says so, the
// daemon plays the run again with fewer games in flight (40/16), and the answer ends
// without a fault, as on one machine.
func TestCrowdedBotInACluster(t *testing.T) {
	snap := questionSnapshot(t, 177765, []int64{177771, 177786}, map[int64]string{999101: hogBot("Hog60MB", "self.table = [0] * 7_500_000")})
	cfg := challengeConfig(t, "forty", "    games: 40\n")
	b, _ := os.ReadFile(cfg)
	if err := os.WriteFile(cfg, []byte(strings.Replace(string(b), "    concurrency: 32768", "    concurrency: 256", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	appendConfig(t, cfg, fmt.Sprintf("cluster:\n  listen: 127.0.0.1:%d\n  local_worker: false\n  shard_games: 40\n  ack_wait: 10s\n", port))
	d := startKothd(t, "once", "--seed", "7", "--config", cfg, "--snapshot", snap, "--challenge", "forty")
	w := startWorker(t, port)
	finish(t, d)
	out, _ := d.output()
	if n := strings.Count(out, "playing run 1 again from its first game"); n != 1 || !strings.Contains(out, "Hog60MB ran out of memory") {
		t.Errorf("%d restarts, want 1 naming Hog60MB:\n%s", n, out)
	}
	if e := stderrOf(w); !strings.Contains(e, "shard stopped") {
		t.Errorf("the worker did not say it stopped the shard:\n%s", e)
	}
	st := openStore(t, cfg)
	defer st.Close()
	run, _ := st.GetRun(context.Background(), 1)
	if run == nil || run.State != "done" || run.Concurrency != 2 || run.GamesPlayed != 40 {
		t.Fatalf("run 1: %+v; want done, 40 games, 2 in flight", run)
	}
	rows, _ := st.Standings(context.Background(), 1)
	for _, r := range rows {
		if r.Errors > 0 {
			t.Errorf("%s has faults: %+v", r.Bot, r)
		}
	}
}
