package cron

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/runner/protocol/dirfiles"
)

// hostBytes is what the regular files under dir hold on the host's disk (a bounded
// directory's files are not there: they are on its tmpfs, in the holder's namespace).
func hostBytes(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// watchWork samples the run's scratch space on the host until stop, and returns the most
// it held.
func watchWork(dataDir string) (stop func() int64) {
	var most atomic.Int64
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		for {
			if n := hostBytes(filepath.Join(dataDir, "work")); n > most.Load() {
				most.Store(n)
			}
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return func() int64 { close(done); <-finished; return most.Load() }
}

// A Bank Heist bot that fills its directory on every decision (disk_mb: 16) plays a real
// run beside an honest bot that keeps a counter there: the filler's writes fail inside
// its sandbox, nothing of them reaches the host's disk, every decision it ends with a
// full directory is its own output-limit fault (never a host fault), and the honest bot
// keeps its file and faults nowhere.
func TestBankHeistDiskFiller(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env, a := adapterEnv(t, "bankheist", "games_per_tournament: 3\n")
	if env.Challenge.Limits.DiskMB != 16 {
		t.Fatalf("the bankheist challenge's disk_mb is %d, the test expects 16", env.Challenge.Limits.DiskMB)
	}
	answer := "if [ \"$2\" = 1 ]; then echo 1; else echo stick; fi\n" // a bet in round 1
	bots := map[string]string{
		"Filler": "i=0; while [ $i -lt 4 ]; do head -c 20000000 /dev/zero > f$RANDOM 2>/dev/null; i=$((i+1)); done\n" + answer,
		"Honest": "n=$(cat count 2>/dev/null || echo 0); echo $((n+1)) > count\n" + answer,
	}
	for _, name := range []string{"Filler", "Honest"} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "bot.sh"), []byte(bots[name]), 0o644); err != nil {
			t.Fatal(err)
		}
		env.Bots = append(env.Bots, engine.Bot{Entrant: engine.Entrant{Name: name}, Dir: dir, Run: []string{"sh", "bot.sh"}})
	}
	env.Run = env.resolve(3).withSeed(7)
	stop := watchWork(env.Config.DataDir)
	played, err := playRun(ctx, env, a, true)
	most := stop()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("filler %v, honest %v; the host's scratch space held at most %d bytes", played.Stats[0].Counts(),
		played.Stats[1].Counts(), most)
	if most > 64<<10 {
		t.Errorf("the host's scratch space held %d bytes while the filler ran", most)
	}
	filler := played.Stats[0].Counts()
	if filler[engine.OutputLimit] == 0 || filler[engine.HostFault] != 0 || played.Stats[0].Faults() != filler[engine.OutputLimit] {
		t.Errorf("filler's faults %v, want output limits only", filler)
	}
	if f := played.Stats[0].First(); f == nil || !strings.Contains(f.Detail, "ENOSPC") {
		t.Errorf("filler's first fault %+v does not say its directory is full", f)
	}
	if n := played.Stats[1].Faults(); n != 0 {
		t.Errorf("the honest bot faulted %d times: %v", n, played.Stats[1].First())
	}
}

// Mafia bots keep files between decisions and games in bounded directories that the
// engine's files (players, from_server, to_server) reach by the path the run gives; a
// bot that fills its directory gets ENOSPC (its own to_server included) and an output
// limit for every decision, while the engine still delivers its messages (from_server is
// emptied before it is written, which frees the page it needs).
func TestMafiaBoundedDirectories(t *testing.T) {
	t.Parallel()
	env, _ := adapterEnv(t, "mafia", "")
	if env.Challenge.Limits.DiskMB != 16 {
		t.Fatalf("the mafia challenge's disk_mb is %d, the test expects 16", env.Challenge.Limits.DiskMB)
	}
	honest := "#!/bin/sh\nn=$(cat memory 2>/dev/null || echo 0); echo $((n+1)) > memory\necho \"$(head -n1 players) $n\" > to_server\n"
	filler := "#!/bin/sh\nhead -c 20000000 /dev/zero > junk 2>/dev/null\necho vote > to_server\n"
	var bots []engine.Bot
	for name, run := range map[string]string{"honest": honest, "filler": filler} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, dirfiles.RunFile), []byte(run), 0o755); err != nil {
			t.Fatal(err)
		}
		bots = append(bots, engine.Bot{Entrant: engine.Entrant{Name: name}, Dir: dir})
	}
	work, cleanup, err := scratch(env, dirfiles.Protocol{}, "run", bots)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	for i, b := range work {
		if b.Dir == filepath.Join(env.Config.DataDir, "work") || !strings.HasPrefix(b.Dir, "/proc/") {
			t.Fatalf("bot %s's directory %s is not bounded", b.Name, b.Dir)
		}
		if filepath.Base(b.Dir) != filepath.Base(env.Game.DirNames(engine.Entrants(bots))[i]) {
			t.Errorf("bot %s's directory %s lost its name", b.Name, b.Dir)
		}
	}
	pool := dirfiles.NewDirPool(env.Sandbox, dirfiles.DirConfig{Limits: processLimits(env)}, work)
	defer pool.Close()
	ctx := context.Background()
	stop := watchWork(env.Config.DataDir)
	for game := 0; game < 2; game++ {
		for i := range work {
			if err := pool.Setup(0, i, []string{"honest", "filler"}); err != nil {
				t.Fatalf("game %d: set up %s: %v", game, work[i].Name, err)
			}
		}
		for turn := 0; turn < 2; turn++ {
			for i, b := range work {
				derr := pool.Deliver(i, "message\n")
				out, f := pool.Run(ctx, engine.At{}, i, true)
				t.Logf("game %d turn %d %s: deliver %v, %q, %v", game, turn, b.Name, derr, out, f)
				switch b.Name {
				case "honest":
					if derr != nil || f != nil || out != "honest "+string(rune('0'+2*game+turn))+"\n" {
						t.Errorf("honest bot, game %d turn %d: deliver %v, %q %v", game, turn, derr, out, f)
					}
				case "filler":
					if f == nil || f.Outcome != engine.OutputLimit {
						t.Errorf("filler: %v, want an output limit", f)
					}
				}
			}
		}
	}
	if most := stop(); most > 64<<10 {
		t.Errorf("the host's scratch space held %d bytes while the filler ran", most)
	}
}
