package runner

import (
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
)

// Whose a wall-clock timeout is, from the kernel's figures (starve.go): the host's only
// when the host, not the bot's own other processes and threads, kept the harness from a
// CPU for long enough.
func TestHostWait(t *testing.T) {
	ms := time.Millisecond
	at := func(cpu, run, wait time.Duration) usage {
		return usage{cpu: cpu, sched: schedStat{run: run, wait: wait}, ok: true}
	}
	limit := time.Second // a wall limit of 5 s: a stopped call was off a CPU for >= 4 s
	for _, c := range []struct {
		name        string
		before, now usage
		k, want     int
	}{
		{"slept: no wait for a CPU", at(0, 0, 0), at(100*ms, 100*ms, 10*ms), 1, 0},
		{"starved by the host", at(0, 0, 0), at(800*ms, 800*ms, 4200*ms), 1, 1},
		{"starved by its own spinning children", at(0, 0, 0), at(4800*ms, 800*ms, 4200*ms), 1, 0},
		{"half starved, half asleep", at(0, 0, 0), at(500*ms, 500*ms, 2000*ms), 1, 1},
		{"a little starved, mostly asleep", at(0, 0, 0), at(500*ms, 500*ms, 1500*ms), 1, 0},
		{"two calls need twice the wait", at(0, 0, 0), at(800*ms, 800*ms, 3*time.Second), 2, 1},
		{"unknown figures", usage{}, at(0, 0, 10*time.Second), 1, 0},
	} {
		if got := hostTimeouts(c.before.hostWait(c.now), c.k, limit); got != c.want {
			t.Errorf("%s: %d of %d calls the host's, want %d", c.name, got, c.k, c.want)
		}
	}
}

// The same for a one-shot bot's decision, timed in wall time.
func TestLauncherStarved(t *testing.T) {
	timeout := 2 * time.Second
	timedOut := &engine.Fault{Outcome: engine.Timeout, Detail: "no answer within 2s"}
	n := func(d time.Duration) *int64 { v := int64(d); return &v }
	for _, c := range []struct {
		name      string
		cpu       time.Duration // the sandbox's, over the decision
		run, wait time.Duration // the bot's main process's threads
		want      engine.Outcome
	}{
		{"slept", 10 * time.Millisecond, 5 * time.Millisecond, time.Millisecond, engine.Timeout},
		{"starved by the host", 700 * time.Millisecond, 690 * time.Millisecond, 1300 * time.Millisecond, engine.HostFault},
		{"starved by its own children", 2 * time.Second, 600 * time.Millisecond, 1300 * time.Millisecond, engine.Timeout},
		{"spun the whole time", 2 * time.Second, 2 * time.Second, 10 * time.Millisecond, engine.Timeout},
	} {
		before, after := use{cpu: time.Second, counted: true}, use{cpu: time.Second + c.cpu, counted: true}
		f := before.starved(after, &launchReply{End: "timeout", Run: n(c.run), Wait: n(c.wait)}, timeout, timedOut)
		if f.Outcome != c.want {
			t.Errorf("%s: %v, want %s", c.name, f, c.want)
		}
	}
	// Without the launcher's figures (an old launcher, no schedstat) the timeout stays.
	if f := (use{counted: true}).starved(use{counted: true}, &launchReply{End: "timeout"}, timeout, timedOut); f != timedOut {
		t.Errorf("without figures: %v", f)
	}
}
