package sandbox

import (
	"strings"
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
		// Fifty threads spinning on one CPU: each waited most of the decision, but the
		// sandbox had its CPU the whole time.
		{"starved by its own threads", 2 * time.Second, 2 * time.Second, 1960 * time.Millisecond, engine.Timeout},
		{"kept half a CPU", time.Second, time.Second, 1000 * time.Millisecond, engine.Timeout},
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

// A bot cannot make itself wait for a CPU: pinning itself to one CPU or lowering its own
// priority (through which an accomplice spinning beside it could starve it, and void the
// games it chose) is denied by the seccomp filter, in a real sandbox.
func TestSandboxDeniesSelfStarving(t *testing.T) {
	sb := NeedBwrap(t)
	if sb.seccomp == nil {
		t.Skip("no seccomp filter on this architecture")
	}
	script := `python3 -c '
import os
for name, f in [("affinity", lambda: os.sched_setaffinity(0, {0})), ("nice", lambda: os.nice(5)),
                ("priority", lambda: os.setpriority(os.PRIO_PROCESS, 0, 19)),
                ("scheduler", lambda: os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0)))]:
    try:
        f()
        print(name, "allowed")
    except PermissionError:
        print(name, "denied")
'`
	out, err := runIn(t, sb, t.TempDir(), Limits{}, script)
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, name := range []string{"affinity", "nice", "priority", "scheduler"} {
		if !strings.Contains(out, name+" denied") {
			t.Errorf("%s not denied: %q", name, out)
		}
	}
}
