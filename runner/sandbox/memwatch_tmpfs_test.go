package sandbox

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// Memory a stop cannot free: an answer's bot directory (a tmpfs, as Bank Heist's and
// Mafia's bots write) holds 150 MiB, above its share of a 400 MB run among three answers
// (133 MiB), and stays when its processes are killed. The run's memory watcher stopped it
// (the answer furthest above its share), then waited two seconds for its memory to go,
// while a second answer of 48 MB processes filled the run past its share and the kernel
// killed the largest process under it, an honest 60 MB bot (a host fault: its game
// voided). Now the watcher waits only until the stopped answer's processes are gone, and
// passes over an answer that has none (a stop would free nothing): it stops the filler,
// and the honest bot lives. Real bwrap, a real tmpfs, real kernel kills.
func TestWatcherPassesOverMemoryAStopCannotFree(t *testing.T) {
	sb, shares := needShares(t, 400)
	victim := holderBot(t, sb, shares.Answer(AnswerKey(1, 0)), 60)
	lim := Limits{MemoryMB: 1024, Procs: 16, OpenFiles: 64, OutputBytes: 1 << 20, FileSizeMB: 64, DirMB: 200}
	dir, _ := boundBotDir(t, sb, lim)
	writer := startHog(t, sb, ProcSpec{Dir: dir, Limits: lim, Share: shares.Answer(AnswerKey(2, 0)), Argv: []string{"/usr/bin/python3", "-c", `
import time
chunk = b"x" * (1 << 20)
for i in range(3):
    with open("f%d" % i, "wb") as f:
        for _ in range(50): f.write(chunk)
time.sleep(60)
`}})
	deadline := time.Now().Add(20 * time.Second)
	for held, _ := shares.Answer(AnswerKey(2, 0)).held(); held < 150<<20 && time.Now().Before(deadline); held, _ = shares.Answer(AnswerKey(2, 0)).held() {
		time.Sleep(100 * time.Millisecond)
	}
	filler := startHog(t, sb, ProcSpec{Dir: t.TempDir(), Limits: Limits{MemoryMB: 1024, Procs: 16, OpenFiles: 64, OutputBytes: 1 << 20},
		Share: shares.Answer(AnswerKey(3, 0)), Argv: []string{"/usr/bin/python3", "-c", `
import os, time
for _ in range(4):
    if os.fork() == 0:
        a = bytearray(48 << 20)
        for i in range(0, len(a), 4096): a[i] = 1
        time.sleep(60)
        os._exit(0)
    time.sleep(0.3)
time.sleep(60)
`}})
	deadline = time.Now().Add(20 * time.Second)
	for !filler.oomKilled().killed() && !victim.Proc.oomKilled().killed() && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(time.Second)
	kv, kw, kf := victim.Proc.oomKilled(), writer.oomKilled(), filler.oomKilled()
	t.Logf("stops %d; the honest bot: %s; the writer: %s; the filler: %s", shares.Stops(), kv.detail(), kw.detail(), kf.detail())
	if kv.killed() {
		t.Errorf("the honest bot was killed: %s", kv.detail())
	}
	if kf.Bound != boundShare {
		t.Errorf("the filler's kill: %+v; want it stopped for its share", kf)
	}
	if line, f := victim.RoundTrip([]byte("are you there"), 10*time.Second); f != nil || string(line) != "alive" {
		t.Errorf("the honest bot after: %q, %v; want it alive", line, f)
	}
}

// holderBot starts a bot of the answer share that holds mb MB and answers "alive".
func holderBot(t *testing.T, sb *Bwrap, share *Share, mb int) *LineProc {
	t.Helper()
	lim := Limits{MemoryMB: 1024, Procs: 16, OpenFiles: 64, OutputBytes: 1 << 20}
	p, err := StartLineProc(context.Background(), sb, ProcSpec{Dir: t.TempDir(), Limits: lim, Share: share,
		Argv: []string{"/usr/bin/python3", "-c", fmt.Sprintf("import sys\na = bytearray(%d << 20)\nfor i in range(0, len(a), 4096): a[i] = 1\nwhile True:\n    sys.stdin.readline()\n    print('alive', flush=True)\n", mb)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	if _, f := p.RoundTrip(nil, 20*time.Second); f != nil {
		t.Fatalf("the honest bot before: %v", f)
	}
	return p
}

// startHog starts a bot process of spec and ends it with the test.
func startHog(t *testing.T, sb *Bwrap, spec ProcSpec) *Process {
	t.Helper()
	p, err := sb.Command(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { KillGroup(p.Cmd); _ = p.Cmd.Wait(); p.Release() })
	return p
}
