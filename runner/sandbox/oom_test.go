package sandbox

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
)

// The bounds on a run's memory, in a run bounded to 400 MB where an honest bot holds
// 80 MB in one process (under its share of 100 MiB once four answers are in the run: at
// 100 MB it was over it, and a watcher that looked while the colluders were still growing
// under theirs stopped the honest bot, by the rule; 1 run in 6):
//   - One answer cannot fill the run: each answer is bounded to half of it, so a hog of
//     eight 40 MB processes is stopped inside its own cgroup, its own processes killed
//     (its fault, named as its answer's half), and the honest bot lives.
//   - Two answers (of one author, say) that each stay under their half would fill it
//     together, and the kernel would kill the largest process under the run: the honest
//     bot. The run's memory watcher stops one of them first, the answer furthest above its
//     share of the run (400 MB over the four answers that have had a sandbox in it), and
//     the honest bot lives.
func TestRunMemoryWatcherStopsColluders(t *testing.T) {
	sb, shares := needShares(t, 400)
	victim := honestBotOf(t, sb, shares.Answer(AnswerKey(1, 0)), 80)

	// One answer of eight 40 MB processes: stopped at its half, 200 MB.
	one := memHog(t, sb, shares.Answer(AnswerKey(2, 0)), 8)
	waitKilled(t, one, 20*time.Second)
	if k := one.oomKilled(); k.Bound != boundAnswer || !strings.Contains(k.detail(), "half of the run's memory") {
		t.Fatalf("the hog answer: %+v (%s); want its own processes killed at its half of the run", k, k.detail())
	}
	if line, f := victim.RoundTrip([]byte("are you there"), 10*time.Second); f != nil || string(line) != "alive" {
		t.Fatalf("the honest bot beside one hog answer: %q, %v; want it alive", line, f)
	}
	KillGroup(one.Cmd)
	_ = one.Cmd.Wait()

	// Two answers of four 40 MB processes each: about 170 MB each, under their halves,
	// past the run's 400 together with the bot.
	a, b := memHog(t, sb, shares.Answer(AnswerKey(3, 0)), 4), memHog(t, sb, shares.Answer(AnswerKey(4, 0)), 4)
	deadline := time.Now().Add(20 * time.Second)
	for shares.Stops() == 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if shares.Stops() == 0 {
		t.Fatal("the run's memory watcher stopped no answer within 20 s")
	}
	time.Sleep(2 * time.Second) // what the colluder left is allocated again, if it can be
	ka, kb := a.oomKilled(), b.oomKilled()
	if ka.Bound != boundShare && kb.Bound != boundShare {
		t.Fatalf("colluders' kills: %+v and %+v; want one stopped for its share", ka, kb)
	}
	for _, k := range []memKill{ka, kb} {
		// Four answers have had sandboxes in the run, the stopped hog's included.
		if k.Bound == boundShare && (!strings.Contains(k.detail(), "above its share of 100 MiB") || !k.own()) {
			t.Errorf("a stopped colluder's fault: %s; want its own, naming its share", k.detail())
		}
	}
	if k := victim.Proc.oomKilled(); k.killed() {
		t.Errorf("the honest bot was killed: %s", k.detail())
	}
	if line, f := victim.RoundTrip([]byte("are you there"), 10*time.Second); f != nil || string(line) != "alive" {
		t.Fatalf("the honest bot beside two colluders: %q, %v; want it alive", line, f)
	}
}

// Without the watcher (StopWatching), the two colluders fill the run and the kernel kills
// the largest process under it, the honest bot: that kill is the host's (a host fault that
// names the run's memory, not AtLimit), since its answer held less than its share.
func TestRunMemoryKillIsNotTheVictims(t *testing.T) {
	sb, shares := needShares(t, 400)
	shares.StopWatching()
	victim := honestBot(t, sb, shares.Answer(AnswerKey(1, 0)))
	memHog(t, sb, shares.Answer(AnswerKey(3, 0)), 4)
	memHog(t, sb, shares.Answer(AnswerKey(4, 0)), 4)
	var f *engine.Fault
	deadline := time.Now().Add(20 * time.Second)
	for f == nil && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
		if victim.Proc.oomKilled().killed() {
			_, f = victim.RoundTrip([]byte("are you there"), 10*time.Second)
		}
	}
	if f == nil {
		t.Fatal("the kernel did not kill the largest process of the run (the honest bot) within 20 s")
	}
	if f.Outcome != engine.HostFault || f.AtLimit || !strings.Contains(f.Detail, "limits.total_memory_mb") || !strings.Contains(f.Detail, "share of 133 MiB") {
		t.Errorf("the honest bot's fault: %+v; want a host fault that names the run's memory and its share, not AtLimit", f)
	}
}

// honestBot starts a bot of the answer share that holds 100 MB and answers "alive".
func honestBot(t *testing.T, sb *Bwrap, share *Share) *LineProc {
	t.Helper()
	return honestBotOf(t, sb, share, 100)
}

// honestBotOf is honestBot holding mb MB.
func honestBotOf(t *testing.T, sb *Bwrap, share *Share, mb int) *LineProc {
	t.Helper()
	lim := Limits{MemoryMB: 1024, Procs: 16, OpenFiles: 64, OutputBytes: 1 << 20}
	victim, err := StartLineProc(context.Background(), sb, ProcSpec{Dir: t.TempDir(), Limits: lim, Share: share,
		Argv: []string{"/usr/bin/python3", "-c", fmt.Sprintf("import sys\na = bytearray(%d << 20)\nfor i in range(0, len(a), 4096): a[i] = 1\nwhile True:\n    sys.stdin.readline()\n    print('alive', flush=True)\n", mb)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(victim.Close)
	if _, f := victim.RoundTrip(nil, 20*time.Second); f != nil {
		t.Fatalf("victim before: %v", f)
	}
	return victim
}

// memHog starts a bot of the answer share that forks children processes of 40 MB each.
func memHog(t *testing.T, sb *Bwrap, share *Share, children int) *Process {
	t.Helper()
	return memHogOf(t, sb, share, children, 40)
}

// memHogOf is memHog with children of mb MB each.
func memHogOf(t *testing.T, sb *Bwrap, share *Share, children, mb int) *Process {
	t.Helper()
	lim := Limits{MemoryMB: 1024, Procs: 16, OpenFiles: 64, OutputBytes: 1 << 20}
	p, err := sb.Command(context.Background(), ProcSpec{Dir: t.TempDir(), Limits: lim, Share: share,
		Argv: []string{"/usr/bin/python3", "-c", fmt.Sprintf(`
import os, time
for _ in range(%d):
    if os.fork() == 0:
        a = bytearray(%d << 20)
        for i in range(0, len(a), 4096): a[i] = 1
        time.sleep(30)
        os._exit(0)
    time.sleep(0.05)
time.sleep(30)
`, children, mb)}})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { KillGroup(p.Cmd); _ = p.Cmd.Wait(); p.Release() })
	return p
}

// waitKilled waits until a process of p's sandbox is killed for memory.
func waitKilled(t *testing.T, p *Process, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !p.oomKilled().killed() && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
}

// A one-shot decision whose process the kernel killed is charged a memory fault, naming
// the bound, when the kill was its sandbox's (or its answer's) own doing, and is the
// host's only when its answer was within its share of the run that filled.
func TestDecisionKilledForTheRunsMemory(t *testing.T) {
	lim := Limits{MemoryMB: 512}
	crash := &engine.Fault{Outcome: engine.Crash, Detail: "killed"}
	before := use{counted: true}
	if f := before.charge(use{counted: true, ooms: 1, kill: memKill{Bound: boundSandbox, SandboxMB: 512}}, lim, crash); f.Outcome != engine.MemoryLimit || !strings.Contains(f.Detail, "the sandbox's 512 MiB") {
		t.Errorf("its own kill: %v, want a memory fault at the sandbox's 512 MiB", f)
	}
	if f := before.charge(use{counted: true, ooms: 1, kill: memKill{Bound: boundAnswer, AnswerMB: 200, RunMB: 400}}, lim, crash); f.Outcome != engine.MemoryLimit || !strings.Contains(f.Detail, "answer's 200 MiB, half of the run's memory") {
		t.Errorf("its answer's kill: %v, want a memory fault at its answer's half", f)
	}
	if f := before.charge(use{counted: true, ooms: 1, kill: memKill{Bound: boundRun}}, lim, crash); f.Outcome != engine.HostFault || !strings.Contains(f.Detail, "total_memory_mb") {
		t.Errorf("the run's kill: %v, want a host fault naming the run's memory", f)
	}
	if f := before.charge(use{counted: true, ooms: 1, kill: memKill{Bound: boundUnexplained}}, lim, crash); f.Outcome != engine.MemoryLimit {
		t.Errorf("an unexplained kill: %v, want the bot's memory fault", f)
	}
}

// Data parked in loopback TCP connections a bot makes in its own network namespace is
// kernel memory; on cgroup v1 it is counted against no limit unless the sandbox's
// kmem.tcp limit is set (cgroup v2 counts it in memory.max). Sixteen connections written
// to without reading would park tens of MB; under the limit the sends stall near it.
// The seccomp filter refuses IPv4 and IPv6 sockets in the first place: the limit is the
// second wall, tested here without the filter.
func TestSocketBuffersBounded(t *testing.T) {
	sb := NeedBwrap(t)
	if sb.cgroups == nil {
		t.Skip("no cgroups")
	}
	if out, err := runIn(t, sb, t.TempDir(), Limits{}, `python3 -c 'import socket; socket.socket()'`); err == nil || !strings.Contains(out, "Address family not supported") {
		t.Errorf("an IPv4 socket in the sandbox: %v: %s", err, out)
	}
	if sb.cgroups.V2 {
		t.Skip("cgroup v2 charges socket buffers to memory.max with the rest")
	}
	out, err := runIn(t, unfiltered(sb), t.TempDir(), Limits{MemoryMB: 256, Procs: 8, OpenFiles: 256}, `python3 -c '
import socket
parked, keep = 0, []
for _ in range(16):
    srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(1)
    c = socket.create_connection(srv.getsockname()); s, _ = srv.accept()
    c.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8 << 20)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    c.setblocking(False)
    chunk = b"x" * 65536
    while True:
        try:
            parked += c.send(chunk)
        except (BlockingIOError, OSError):
            break
    keep += [srv, c, s]
print(parked >> 20)
'`)
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var mb int
	if _, err := fmt.Sscan(out, &mb); err != nil {
		t.Fatalf("%q: %v", out, err)
	}
	t.Logf("%d MiB parked in 16 loopback connections", mb)
	if mb > 2*SocketBufferMB {
		t.Errorf("%d MiB parked in socket buffers, over twice the sandbox's %d MiB", mb, SocketBufferMB)
	}
}
