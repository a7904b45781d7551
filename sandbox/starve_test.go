package sandbox

import (
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
)

// Whose a one-shot bot's wall-clock timeout is, from the kernel's figures (starve.go).
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
