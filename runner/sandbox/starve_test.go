package sandbox

import (
	"context"
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
	// Starved while its answer's decision in another tournament spun beside it: the answer
	// had the CPU, the timeout is its own.
	before := use{cpu: time.Second, counted: true, answer: 10 * time.Second, answerOK: true}
	after := use{cpu: time.Second + 700*time.Millisecond, counted: true, answer: 12 * time.Second, answerOK: true}
	if f := before.starved(after, &launchReply{End: "timeout", Run: n(690 * time.Millisecond), Wait: n(1300 * time.Millisecond)}, timeout, timedOut); f.Outcome != engine.Timeout {
		t.Errorf("starved by its own answer's other sandbox: %v, want a timeout", f)
	}
	after.answer = 10*time.Second + 700*time.Millisecond // the answer used only this sandbox's CPU
	if f := before.starved(after, &launchReply{End: "timeout", Run: n(690 * time.Millisecond), Wait: n(1300 * time.Millisecond)}, timeout, timedOut); f.Outcome != engine.HostFault {
		t.Errorf("starved by the host, its answer idle elsewhere: %v, want a host fault", f)
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

// The answer's CPU time that starved reads around a decision is there for a launcher under
// a Share, and counts the answer's other sandboxes too: two launchers of one answer, each
// having spun, read the same answer CPU, at least the sum of theirs.
func TestAnswerCPURead(t *testing.T) {
	sb, shares := needShares(t, 0)
	share := shares.Answer(AnswerKey(5, 0))
	var procs []*Process
	for range 2 {
		l := NewLauncher(sb, ProcSpec{Dir: t.TempDir(), Argv: []string{"sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"}, Share: share})
		defer l.Close()
		if _, f := l.Run(context.Background(), nil, 20*time.Second); f != nil {
			t.Fatal(f)
		}
		lp, err := l.get(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer l.put(lp)
		procs = append(procs, lp.p.Proc)
	}
	var sum time.Duration
	for _, p := range procs {
		own, _ := p.CPU()
		if own <= 0 {
			t.Fatalf("a launcher's sandbox used %v of CPU", own)
		}
		sum += own
	}
	for i, p := range procs {
		if ans, ok := p.answerCPU(); !ok || ans < sum {
			t.Errorf("launcher %d reads the answer's CPU as %v (%v); the two sandboxes used %v", i, ans, ok, sum)
		}
	}
}

// needShares is a real sandbox with cgroups and a run's Shares bounded to memoryMB (0:
// the default), closed with the test.
func needShares(t *testing.T, memoryMB int) (*Bwrap, *Shares) {
	t.Helper()
	sb := NeedBwrap(t)
	if sb.cgroups == nil {
		t.Skip("no cgroups: no run's Shares")
	}
	shares, err := NewShares(sb, memoryMB)
	if err != nil || shares == nil {
		t.Fatalf("shares: %v", err)
	}
	t.Cleanup(func() { shares.Close() })
	return sb, shares
}
