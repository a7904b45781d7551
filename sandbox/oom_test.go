package sandbox

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
)

// When the run's bots together fill the run's memory bound (limits.total_memory_mb), the
// kernel kills the largest process under the run. That may be an honest bot of another
// answer, far under its own limit: its death is the host's (its game voided, no memory
// fault charged to it, no restart naming it), not its own. Here an honest bot holds
// 100 MB in one process while another answer's eight processes of 40 MB each fill a run
// bounded to 400 MB: the honest bot, the largest process, is killed, and its fault is a
// host fault that says why.
func TestRunMemoryKillIsNotTheVictims(t *testing.T) {
	sb := NeedBwrap(t)
	if sb.cgroups == nil {
		t.Skip("no cgroups: no run memory bound")
	}
	shares, err := NewShares(sb, 400)
	if err != nil || shares == nil {
		t.Fatalf("shares: %v", err)
	}
	defer shares.Close()
	lim := Limits{MemoryMB: 1024, Procs: 16, OpenFiles: 64, OutputBytes: 1 << 20}

	victim, err := StartLineProc(context.Background(), sb, ProcSpec{Dir: t.TempDir(), Limits: lim, Share: shares.Answer(AnswerKey(1, 0)),
		Argv: []string{"/usr/bin/python3", "-c", "import sys\na = bytearray(100 << 20)\nfor i in range(0, len(a), 4096): a[i] = 1\nprint('ready', flush=True)\nsys.stdin.readline()\nprint('alive', flush=True)\nsys.stdin.readline()\n"}})
	if err != nil {
		t.Fatal(err)
	}
	defer victim.Close()
	if _, f := victim.RoundTrip(nil, 20*time.Second); f != nil {
		t.Fatalf("victim before: %v", f)
	}

	hog, err := sb.Command(context.Background(), ProcSpec{Dir: t.TempDir(), Limits: lim, Share: shares.Answer(AnswerKey(2, 0)),
		Argv: []string{"/usr/bin/python3", "-c", `
import os, time
for _ in range(8):
    if os.fork() == 0:
        a = bytearray(40 << 20)
        for i in range(0, len(a), 4096): a[i] = 1
        time.sleep(30)
        os._exit(0)
    time.sleep(0.05)
time.sleep(30)
`}})
	if err != nil {
		t.Fatal(err)
	}
	defer hog.Release()
	if err := hog.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer KillGroup(hog.Cmd)

	// The victim is killed as the hogs fill the run: its next round trip finds it dead.
	var f *engine.Fault
	deadline := time.Now().Add(20 * time.Second)
	for f == nil && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
		if killed, _ := victim.Proc.oomKilled(); killed {
			_, f = victim.RoundTrip([]byte("are you there"), 10*time.Second)
		}
	}
	if f == nil {
		t.Fatal("the kernel did not kill the largest process of the run (the victim) within 20 s")
	}
	if f.Outcome != engine.HostFault || f.AtLimit || !strings.Contains(f.Detail, "limits.total_memory_mb") {
		t.Errorf("the victim's fault: %+v; want a host fault that names the run's memory, not AtLimit", f)
	}
}

// A one-shot decision whose process the kernel killed is charged a memory fault when the
// kill was its sandbox's (or its answer's) own doing, and is the host's otherwise.
func TestDecisionKilledForTheRunsMemory(t *testing.T) {
	lim := Limits{MemoryMB: 512}
	crash := &engine.Fault{Outcome: engine.Crash, Detail: "killed"}
	before := use{counted: true}
	if f := before.charge(use{counted: true, ooms: 1, ownOOM: true}, lim, crash); f.Outcome != engine.MemoryLimit {
		t.Errorf("its own kill: %v, want a memory fault", f)
	}
	if f := before.charge(use{counted: true, ooms: 1}, lim, crash); f.Outcome != engine.HostFault || !strings.Contains(f.Detail, "total_memory_mb") {
		t.Errorf("the run's kill: %v, want a host fault naming the run's memory", f)
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
