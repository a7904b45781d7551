package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The run's brake on v2's files: set at its level while the run is under the watcher's
// trigger; kept while the watcher stops an answer over its share; raised, never lifted,
// past the trigger with every answer within its share (halfway from the run's usage to
// the bound, so that answers parked within their shares cannot switch it off); back to
// its level once the run, page cache aside, is under the trigger; lifted when the
// watcher stops.
func TestWatcherBrake(t *testing.T) {
	f := newFakeCgroups(t, true)
	const runMiB = 400
	stat := func(fileMiB int64) string { return "anon 0\nactive_file " + mib(fileMiB) + "\ninactive_file 0" }
	f.set("run", "memory.max", mib(runMiB), "memory.current", mib(100), "memory.stat", stat(0), "memory.high", "max")
	s := &Shares{node: node{Tree: f.tree(), Rel: "run"}, memoryMB: runMiB, answers: map[string]*Share{},
		brake: brakeLevel(runMiB << 20)}
	for _, a := range []string{"a1", "a2", "a3"} {
		f.set("run/"+a, "memory.max", mib(runMiB/2), "memory.current", mib(125), "memory.stat", stat(0))
		f.set("run/"+a+"/sb", "cgroup.procs", "", "cgroup.events", "populated 1\nfrozen 0")
		share := &Share{node: node{Tree: s.Tree, Rel: "run/" + a}}
		share.track(&sandboxCgroup{Tree: s.Tree, name: "run/" + a + "/sb", answer: a})
		s.answers[a] = share
	}
	high := func() string {
		data, err := os.ReadFile(filepath.Join(f.root, "run", "memory.high"))
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(data))
	}
	waitHigh := func(want, when string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for high() != want && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if got := high(); got != want {
			t.Fatalf("%s: memory.high %s, want %s", when, got, want)
		}
	}
	// The trigger of a 400 MiB run is 304 MiB (memWatchHeadroom below the bound); the
	// brake halfway from there.
	level := mib(352)
	if got := brakeLevel(runMiB << 20); mib(got>>20) != level || got%(1<<20) != 0 {
		t.Fatalf("brakeLevel(400 MiB) = %d bytes, want 352 MiB", got)
	}

	s.watch()
	waitHigh(level, "under the trigger")
	// Three answers of 125 MiB, each within its 133: raised to halfway to the bound.
	f.set("run", "memory.current", mib(330))
	waitHigh(mib(365), "past the trigger at 330 MiB, nobody over their share")
	f.set("run", "memory.current", mib(380))
	waitHigh(mib(390), "at 380 MiB, nobody over their share")
	// Usage that wanders by less than a quarter of the room above the brake leaves it
	// where it is (the watcher looks every 5 ms here: not a write at each look).
	f.set("run", "memory.current", mib(384))
	time.Sleep(100 * time.Millisecond)
	if got := high(); got != mib(390) {
		t.Fatalf("at 384 MiB: memory.high %s, want it left at 390 MiB", got)
	}
	// Back down past the trigger, it follows the run down.
	f.set("run", "memory.current", mib(330))
	waitHigh(mib(365), "back down to 330 MiB")
	if s.Stops() != 0 {
		t.Errorf("%d answers stopped; want none", s.Stops())
	}
	// Page cache the kernel would reclaim first: the run is under the trigger.
	f.set("run", "memory.stat", stat(100))
	waitHigh(level, "380 MiB of which 100 MiB page cache")
	f.set("run", "memory.stat", stat(0), "memory.current", mib(200))
	waitHigh(level, "back under the trigger")
	// An answer over its share is stopped with the brake kept where it is.
	f.set("run/a2", "memory.current", mib(150))
	f.set("run", "memory.current", mib(360))
	deadline := time.Now().Add(10 * time.Second)
	for s.Stops() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got := high(); s.Stops() == 0 || got != level {
		t.Fatalf("an answer over its share at 360 MiB: %d stopped, memory.high %s; want it stopped with the brake at its level", s.Stops(), got)
	}
	s.StopWatching()
	if got := high(); got != "max" {
		t.Errorf("after StopWatching: memory.high %s, want max (the kernel alone bounds the run)", got)
	}
}

// On v2, the run's brake holds two colluders below the run's bound while the watcher does
// not look (it starts three seconds late here, as a watcher waiting for a CPU on a busy
// host looks late): the kernel never kills at the bound, where it would take the largest
// process, the honest bot (TestRunMemoryKillIsNotTheVictims), and once the watcher looks
// it stops a colluder for its share. Two answers of four 40 MB processes each beside an
// honest bot of 100 MB, in a run of 400 MB.
func TestRunMemoryBrakeHoldsALateWatcher(t *testing.T) {
	sb, shares, run := brakeShares(t, false)
	victim := honestBot(t, sb, shares.Answer(AnswerKey(1, 0)))
	a, b := memHog(t, sb, shares.Answer(AnswerKey(3, 0)), 4), memHog(t, sb, shares.Answer(AnswerKey(4, 0)), 4)

	time.Sleep(3 * time.Second)
	ev, err := os.ReadFile(filepath.Join(run, "memory.events"))
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := cgroupKey(ev, "oom_kill"); n != 0 {
		t.Fatalf("the kernel killed %d processes at the run's bound with the brake set; memory.events:\n%s", n, ev)
	}
	if n, _ := cgroupKey(ev, "high"); n == 0 {
		t.Fatalf("the colluders were never held back (memory.events high 0): did they fill the run?\n%s", ev)
	}
	if line, f := victim.RoundTrip([]byte("are you there"), 10*time.Second); f != nil || string(line) != "alive" {
		t.Fatalf("the honest bot while the watcher did not look: %q, %v; want it alive", line, f)
	}

	watchStopsAColluder(t, shares, a, b, victim)
	if line, f := victim.RoundTrip([]byte("are you there"), 10*time.Second); f != nil || string(line) != "alive" {
		t.Fatalf("the honest bot after the stop: %q, %v; want it alive", line, f)
	}
}

// On v2, answers parked within their shares past the trigger cannot switch the brake off:
// the watcher raises it above them instead of lifting it, so when they then jump together
// while it does not look (paused here, as a watcher waiting for a CPU on a busy host
// looks late), the kernel holds them back and never kills at the bound; once the watcher
// looks again it stops one of them for its share. Two answers of three 36 MB processes
// each, beside an honest bot of 100 MB in a run of 400 MB (shares of 133 MiB), then one
// more 40 MB process each. With the brake lifted instead, the honest bot was killed in
// 3 runs of 3 (the review of the first version of the brake).
func TestRunMemoryBrakeHoldsParkedColluders(t *testing.T) {
	sb, shares, run := brakeShares(t, true)
	victim := honestBot(t, sb, shares.Answer(AnswerKey(1, 0)))
	memHogOf(t, sb, shares.Answer(AnswerKey(3, 0)), 3, 36)
	memHogOf(t, sb, shares.Answer(AnswerKey(4, 0)), 3, 36)
	trigger := watchTrigger(400 << 20)
	deadline := time.Now().Add(20 * time.Second)
	var used int64
	var err error
	for time.Now().Before(deadline) {
		if used, err = readCgroupInt(filepath.Join(run, "memory.current")); err == nil && used > trigger+8<<20 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond) // the watcher looks at the parked run
	if used <= trigger {
		t.Fatalf("the colluders did not park past the trigger: the run holds %d MiB", used>>20)
	}
	if shares.Stops() != 0 {
		t.Fatalf("an answer parked within its share was stopped")
	}
	shares.pauseWatching()
	high, err := os.ReadFile(filepath.Join(run, "memory.high"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(high)) == "max" {
		t.Fatalf("the brake was lifted with the run parked at %d MiB", used>>20)
	}

	a, b := memHogOf(t, sb, shares.Answer(AnswerKey(3, 0)), 1, 40), memHogOf(t, sb, shares.Answer(AnswerKey(4, 0)), 1, 40)
	time.Sleep(3 * time.Second)
	ev, err := os.ReadFile(filepath.Join(run, "memory.events"))
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := cgroupKey(ev, "oom_kill"); n != 0 {
		t.Fatalf("the kernel killed %d processes at the run's bound (memory.high %s); memory.events:\n%s", n, high, ev)
	}
	if line, f := victim.RoundTrip([]byte("are you there"), 10*time.Second); f != nil || string(line) != "alive" {
		t.Fatalf("the honest bot while the watcher did not look: %q, %v; want it alive", line, f)
	}

	watchStopsAColluder(t, shares, a, b, victim)
}

// brakeShares is a run of 400 MB on cgroup v2 (the test is skipped elsewhere) and its
// cgroup's directory, with its memory watcher running or not yet (watched).
func brakeShares(t *testing.T, watched bool) (*Bwrap, *Shares, string) {
	t.Helper()
	sb := NeedBwrap(t)
	if sb.cgroups == nil {
		t.Skip("no cgroups: no run's Shares")
	}
	if !sb.cgroups.V2 {
		t.Skip("cgroup v1 has no memory.high: its watcher acts alone")
	}
	shares, err := newShares(sb, 400)
	if err != nil || shares == nil {
		t.Fatalf("shares: %v", err)
	}
	t.Cleanup(func() { shares.Close() })
	if watched {
		shares.watch()
	}
	return sb, shares, filepath.Join(shares.Tree.Mem, shares.Rel)
}

// watchStopsAColluder starts the run's watcher (again) and checks that it stops one of
// the colluders a and b for its share within 20 s, the honest bot victim untouched.
func watchStopsAColluder(t *testing.T, shares *Shares, a, b *Process, victim *LineProc) {
	t.Helper()
	shares.watch()
	deadline := time.Now().Add(20 * time.Second)
	for shares.Stops() == 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if shares.Stops() == 0 {
		t.Fatal("the run's memory watcher stopped no answer within 20 s of looking")
	}
	if ka, kb := a.oomKilled(), b.oomKilled(); ka.Bound != boundShare && kb.Bound != boundShare {
		t.Fatalf("the colluders' kills: %+v and %+v; want one stopped for its share", ka, kb)
	}
	if k := victim.Proc.oomKilled(); k.killed() {
		t.Errorf("the honest bot was killed: %s", k.detail())
	}
}
