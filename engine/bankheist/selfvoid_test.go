package bankheist_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/cron/crontest"
	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/scraper"
)

// sorePanga plays as PassivePanga, but in round 2 of every other game (when the bank
// looks bad, say) it forks four children of 48 MB under a 128 MB sandbox: past its own
// memory, so the kernel kills some of them at the sandbox's limit. Its decision is
// answered all the same.
const sorePanga = `<h1>SorePanga, Python 3</h1><pre><code>import os, sys, time
credits = int(sys.argv[9])
if sys.argv[2] == "1":
    print(69 if credits &gt; 69 else 0)
else:
    if int(sys.argv[1]) % 2 == 1:
        for _ in range(4):
            if os.fork() == 0:
                a = bytearray(48 &lt;&lt; 20)
                for i in range(0, len(a), 4096): a[i] = 1
                time.sleep(1)
                os._exit(0)
        for _ in range(4): os.wait()
    print("!guncheck")
</code></pre>`

const passivePanga = `<h1>PassivePanga, Python 3</h1><pre><code>import sys
credits = int(sys.argv[9])
if sys.argv[2] == "1":
    print(69 if credits &gt; 69 else 0)
else:
    print("!guncheck")
</code></pre>`

// A one-shot bot voided the games it chose: it overran its own sandbox's memory when the
// bank looked bad, the kernel killed at the sandbox's limit, and the host called the kill
// the run's (cgroup v1's memory.failcnt stays 0 on this kernel): a host fault, the game
// voided (13 of 85 games; here, before the fix, the 6 games of 12 it chose). Now the kill
// is its memory fault and no game is voided.
func TestBankHeistSelfVoid(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	crontest.WriteSnapshot(t, filepath.Join(dir, "snap"), 115303, []string{sorePanga, passivePanga})
	cy := crontest.NewCycle(t, dir)
	cy.Source = scraper.Snapshot{Dir: filepath.Join(dir, "snap"), Site: "codegolf"}
	ch, _ := cy.Config.Challenge("bankheist")
	ch.Baselines = true
	crontest.Patient(ch)
	ch.Limits.MemoryMB = 128
	ch.Limits.TotalMemoryMB = 2048
	if err := yaml.Unmarshal([]byte("games_per_tournament: 12\n"), &ch.Options); err != nil {
		t.Fatal(err)
	}
	seed := uint64(3)
	start := time.Now()
	rep, err := cy.Run(ctx, ch, cron.Options{Seed: &seed, Games: 12})
	if err != nil {
		t.Fatal(err)
	}
	run, err := cy.Store.GetRun(ctx, rep.RunID)
	if err != nil || run.Result == nil {
		t.Fatalf("run %+v: %v", run, err)
	}
	rows, err := cy.Store.Standings(ctx, rep.RunID)
	if err != nil {
		t.Fatal(err)
	}
	sore := -1
	for _, r := range rows {
		if r.Bot == "SorePanga" {
			sore = r.Faults[engine.MemoryLimit]
			t.Logf("SorePanga: rank %d, faults %v, first %s", r.Rank, r.Faults, crontest.Clip(r.FirstFault, 300))
		}
	}
	t.Logf("%d games played, %d voided, in %v", run.Result.Games, run.Result.Voided, time.Since(start).Round(time.Second))
	if run.Result.Voided != 0 || sore <= 0 {
		t.Errorf("%d games voided, SorePanga charged %d memory faults; want none voided and its kills its own", run.Result.Voided, sore)
	}
}
