package forty_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/cron/crontest"
	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/publisher"
)

// The hostile field (testdata/hostile: seven bots that play well for 30 decisions, enter,
// then turn bad) costs a run a bounded number of calls: each bot that faults on every call
// is benched after limits.fault_streak faulted decisions in a row, and the rest of its
// calls get the default without being sent. The plain bots are ranked as if the field were
// not there: entered, on the board, no fault charged to them. 200 games with the field and
// 200 with the plain bots alone, real harness processes under bwrap; the two runs' times
// are logged (not asserted: the host is shared).
func TestHostileFieldIsBenched(t *testing.T) {
	if testing.Short() {
		t.Skip("plays 400 forty games with real processes")
	}
	t.Parallel()
	const (
		games       = 200
		concurrency = 16 // a batch holds at most one call per game in flight
		streak      = 20 // limits.fault_streak's default
		maxRestarts = 20 // a run's restarts of one bot's process (cron's pyConfig)
	)
	files, err := filepath.Glob("testdata/hostile/*.py")
	if err != nil || len(files) != 11 {
		t.Fatalf("fixture: %v %v", files, err)
	}
	sort.Strings(files)
	var plain, all []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		body := "<h1>" + strings.TrimSuffix(filepath.Base(f), ".py") + "</h1><pre><code>" + htmlEscape(string(b)) + "</code></pre>"
		all = append(all, body)
		if strings.HasPrefix(filepath.Base(f), "plain_") {
			plain = append(plain, body)
		}
	}
	run := func(name string, bodies []string) (*publisher.Board, string, time.Duration) {
		dir := t.TempDir()
		cy := crontest.NewCycle(t, dir)
		cy.Source = crontest.WriteSnapshot(t, filepath.Join(dir, "snap"), 177765, bodies)
		ch, err := cy.Config.Challenge("forty")
		if err != nil {
			t.Fatal(err)
		}
		ch.Baselines = false
		ch.Concurrency = concurrency
		ch.Limits.CallTimeout = config.Duration(250 * time.Millisecond) // CPU time: load does not fault the plain bots
		ch.Limits.MemoryMB = 256
		ch.Limits.Procs = 8
		seed := uint64(812)
		start := time.Now()
		rep, err := cy.Run(context.Background(), ch, cron.Options{Games: games, Seed: &seed})
		took := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Rejected) != 0 || rep.Entered != len(bodies) || rep.Games != games {
			t.Fatalf("%s: entered %d of %d, rejected %+v, %d games", name, rep.Entered, len(bodies), rep.Rejected, rep.Games)
		}
		raw, err := os.ReadFile(filepath.Join(cy.Config.OutputDir, "forty.json"))
		if err != nil {
			t.Fatal(err)
		}
		var b publisher.Board
		if err := json.Unmarshal(raw, &b); err != nil {
			t.Fatal(err)
		}
		md, err := os.ReadFile(filepath.Join(cy.Config.OutputDir, "forty.md"))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bots, %d games in %s", name, len(bodies), games, took.Round(time.Millisecond))
		return &b, string(md), took
	}
	clean, _, cleanTook := run("plain bots alone", plain)
	hostile, hostileMD, hostileTook := run("plain bots and the hostile field", all)
	t.Logf("the hostile field took %.1f× the clean run", hostileTook.Seconds()/cleanTook.Seconds())

	rows := map[string]publisher.Row{}
	for _, r := range hostile.Rows {
		rows[r.Bot] = r
		t.Logf("%-12s played %3d  faults %v  benched %+v", r.Bot, r.Games, r.Faults, r.Benched)
	}
	for _, r := range clean.Rows {
		h, ok := rows[r.Bot]
		switch {
		case !ok:
			t.Errorf("%s: not on the board beside the hostile field", r.Bot)
		case len(h.Faults) != 0 || h.FirstFault != "" || h.Benched != nil:
			t.Errorf("%s: faults %v (%s), benched %+v", r.Bot, h.Faults, h.FirstFault, h.Benched)
		case h.Games == 0:
			t.Errorf("%s: played no game", r.Bot)
		}
	}
	// The lingerer answers every call: it is played, never benched.
	if l := rows["Lingerer"]; l.Benched != nil || l.Games == 0 {
		t.Errorf("Lingerer: %+v", l)
	}
	for _, name := range []string{"Spinner", "Sleeper", "Crasher", "Forker", "MemoryHog", "Garbler"} {
		r := rows[name]
		b := r.Benched
		faults := 0
		for o, n := range r.Faults {
			if o != engine.OK {
				faults += n
			}
		}
		sent := faults
		if b != nil {
			sent -= b.Calls
			if b.Streak < streak || b.Streak >= streak+concurrency || b.Calls == 0 || b.Game < 0 || b.Game >= games {
				t.Errorf("%s: bench %+v (limit %d, batches ≤ %d calls)", name, b, streak, concurrency)
			}
		}
		switch name {
		case "Spinner", "Crasher", "Forker":
			// Its process lives on: every decision from the turn on faults. It is sent
			// the streak, and at most the rest of the batch that completed it. (The
			// sleeper is not here: on a loaded host the runner's deadline per batch can
			// end its process before its own timers do, and a new process plays well
			// again, so the restart limit bounds it, as below.)
			if b == nil || sent > b.Streak+concurrency {
				t.Errorf("%s: benched %+v, %d faulted calls sent; faults %v", name, b, sent, r.Faults)
			}
		default:
			// Its fault kills its process (memory, an unreadable reply), and a new process
			// plays well for 30 turns, so its streaks are short: the restart limit bounds
			// it (20 restarts, each losing at most one batch and the games in flight),
			// then every call faults at once and the streak benches it.
			if bound := (maxRestarts+1)*2*concurrency + streak + concurrency; sent > bound {
				t.Errorf("%s: %d faulted calls sent, more than %d; faults %v", name, sent, bound, r.Faults)
			}
		}
	}
	if !strings.Contains(hostileMD, "benched from game ") {
		t.Errorf("the board does not say who was benched:\n%s", hostileMD)
	}
}

// The bench comes at the same game for the same seed and bots: the streak is counted in
// the order the lockstep sends a bot its calls (here two groups of games in each tick, the
// forty default), never by timing.
func TestBenchIsDeterministic(t *testing.T) {
	t.Parallel()
	var bodies []string
	for _, f := range []string{"crasher", "forker", "plain_goto16", "plain_twenty"} {
		b, err := os.ReadFile(filepath.Join("testdata", "hostile", f+".py"))
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, "<h1>"+f+"</h1><pre><code>"+htmlEscape(string(b))+"</code></pre>")
	}
	benches := func() map[string]publisher.Row {
		dir := t.TempDir()
		cy := crontest.NewCycle(t, dir)
		cy.Source = crontest.WriteSnapshot(t, filepath.Join(dir, "snap"), 177765, bodies)
		ch, err := cy.Config.Challenge("forty")
		if err != nil {
			t.Fatal(err)
		}
		ch.Baselines = false
		ch.Limits.FaultStreak = 10
		crontest.Patient(ch)
		seed := uint64(4)
		if _, err := cy.Run(context.Background(), ch, cron.Options{Games: 300, Seed: &seed}); err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(filepath.Join(cy.Config.OutputDir, "forty.json"))
		if err != nil {
			t.Fatal(err)
		}
		var b publisher.Board
		if err := json.Unmarshal(raw, &b); err != nil {
			t.Fatal(err)
		}
		out := map[string]publisher.Row{}
		for _, r := range b.Rows {
			out[r.Bot] = publisher.Row{Benched: r.Benched, Faults: r.Faults, Games: r.Games, Wins: r.Wins}
		}
		return out
	}
	first, second := benches(), benches()
	for _, name := range []string{"Crasher", "Forker"} {
		if first[name].Benched == nil || first[name].Benched.Streak < 10 {
			t.Errorf("%s: %+v", name, first[name].Benched)
		}
	}
	if !reflect.DeepEqual(first, second) {
		t.Errorf("same seed, same bots, other benches:\n%+v\n%+v", first, second)
	}
}
