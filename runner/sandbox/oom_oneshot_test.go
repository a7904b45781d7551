package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
)

// oneShotHog is a one-shot bot (a Bank Heist bot, say) that, when told "bad", forks four
// children of 48 MB in its 128 MB sandbox: together past the sandbox's memory, so the
// kernel kills some of them at the sandbox's own limit. "shm N" makes and fills a SysV
// shared memory segment of N MiB and leaves it (no IPC_RMID); "segments" counts the
// segments the bot's IPC namespace holds.
const oneShotHog = `
import ctypes, os, sys, time
cmd = sys.argv[1]
if cmd == "bad":
    for _ in range(4):
        if os.fork() == 0:
            a = bytearray(48 << 20)
            for i in range(0, len(a), 4096): a[i] = 1
            time.sleep(2)
            os._exit(0)
    for _ in range(4): os.wait()
elif cmd == "shm":
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmat.restype = ctypes.c_void_p
    size = int(sys.argv[2]) << 20
    sid = libc.shmget(0, ctypes.c_size_t(size), 0o1600)  # IPC_PRIVATE, IPC_CREAT|0600
    if sid < 0: sys.exit("shmget: %d" % ctypes.get_errno())
    addr = libc.shmat(sid, None, 0)
    if addr in (None, ctypes.c_void_p(-1).value): sys.exit("shmat: %d" % ctypes.get_errno())
    ctypes.memset(addr, 1, size)
    libc.shmdt(ctypes.c_void_p(addr))
elif cmd == "segments":
    print(len(open("/proc/sysvipc/shm").read().splitlines()) - 1)
    sys.exit(0)
print("ok")
`

func oneShotSpec(t *testing.T, share *Share) ProcSpec {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte(oneShotHog), 0o644); err != nil {
		t.Fatal(err)
	}
	return ProcSpec{Dir: dir, Argv: []string{"/usr/bin/python3", "bot.py"}, Share: share,
		Limits: Limits{MemoryMB: 128, Procs: 16, OpenFiles: 64, OutputBytes: 1 << 20}}
}

// A one-shot bot that overruns its own sandbox's memory when it chooses (when the bank
// looks bad) must be charged for it, not have the game voided. The kernel kills at the
// sandbox's own limit, but on this kernel (6.18, cgroup v1 with swap accounting) the
// sandbox's memory.failcnt stays 0, and the check that asked it called the kill the
// run's: a host fault, the game voided (13 of 85 Bank Heist games). Its peak at its limit
// shows whose the kill was. Six decisions, three of them bad, in a run of 2 GiB (its
// answer's half, 1 GiB, is far above the sandbox's 128 MiB).
func TestOneShotOverItsOwnMemoryIsItsFault(t *testing.T) {
	sb, shares := needShares(t, 2048)
	l := newTestLauncher(t, sb, oneShotSpec(t, shares.Answer(AnswerKey(7, 0))))
	counts := map[engine.Outcome]int{}
	for i := range 6 {
		arg := "good"
		if i%2 == 1 {
			arg = "bad"
		}
		r := l.Launch(context.Background(), Job{Args: []string{arg}, Timeout: 20 * time.Second})
		counts[outcome(r.Fault)]++
		if arg == "bad" && r.Fault != nil && !strings.Contains(r.Fault.Detail, "passed the sandbox's 128 MiB (memory_mb)") {
			t.Errorf("a bad decision's fault: %+v; want the sandbox's limit named", r.Fault)
		}
		if arg == "good" && r.Fault != nil {
			t.Errorf("a good decision: %+v", r.Fault)
		}
	}
	t.Logf("outcomes of 6 decisions, 3 over the sandbox's memory: %v", counts)
	if counts[engine.HostFault] != 0 || counts[engine.MemoryLimit] != 3 {
		t.Errorf("outcomes %v; want 3 memory faults, no host fault (no game voided)", counts)
	}
}

// A bot holding SysV shared memory: the sandbox gives each bot an IPC namespace of its
// own (bwrap --unshare-ipc), and the kernel charges a segment's pages to the cgroup of the
// process that touched them. So a segment a decision leaves behind stays in the bot's own
// sandbox's memory (the next decisions of that launcher see it and pay for it), no other
// sandbox sees it, it goes with the sandbox (the namespace dies with its last process:
// nothing is parked in the answer's or the run's cgroup), and a segment past the
// sandbox's memory is the bot's memory fault, not a voided game (11 of 22 were).
func TestSharedMemoryStaysInItsSandbox(t *testing.T) {
	sb, shares := needShares(t, 2048)
	share := shares.Answer(AnswerKey(8, 0))
	answerUsed := func() int64 {
		n, err := readCgroupInt(filepath.Join(sb.cgroups.Mem, share.Rel, pick(sb.cgroups.V2, "memory.current", "memory.usage_in_bytes")))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	l := newTestLauncher(t, sb, oneShotSpec(t, share))
	if r := l.Launch(context.Background(), Job{Args: []string{"shm", "64"}, Timeout: 20 * time.Second}); r.Fault != nil {
		t.Fatalf("a 64 MiB segment: %+v", r.Fault)
	}
	if r := l.Launch(context.Background(), Job{Args: []string{"segments"}, Timeout: 20 * time.Second}); r.Fault != nil || strings.TrimSpace(r.Stdout) != "1" {
		t.Errorf("the bot's own later decision sees %q segments (%v); want its 1", r.Stdout, r.Fault)
	}
	l.mu.Lock()
	cg := l.idle[0].p.Proc.cg
	l.mu.Unlock()
	held, ok := cgroupPeak(cg.Dir(cg.Tree.Mem), cg.Tree.V2)
	if !ok || held < 64<<20 {
		t.Errorf("the bot's sandbox peaked at %d MiB; want its 64 MiB segment charged to it", held>>20)
	}
	other := newTestLauncher(t, sb, oneShotSpec(t, shares.Answer(AnswerKey(9, 0))))
	if r := other.Launch(context.Background(), Job{Args: []string{"segments"}, Timeout: 20 * time.Second}); r.Fault != nil || strings.TrimSpace(r.Stdout) != "0" {
		t.Errorf("another sandbox sees %q segments (%v); want none", r.Stdout, r.Fault)
	}
	l.Close()
	deadline := time.Now().Add(5 * time.Second)
	for answerUsed() >= 32<<20 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := answerUsed(); n >= 32<<20 {
		t.Errorf("the answer's cgroup holds %d MiB after its sandbox ended; want the segment gone with it", n>>20)
	}

	// A segment past the sandbox's memory: the bot's fault, named as the sandbox's limit.
	l = newTestLauncher(t, sb, oneShotSpec(t, share))
	r := l.Launch(context.Background(), Job{Args: []string{"shm", "256"}, Timeout: 20 * time.Second})
	if r.Fault == nil || r.Fault.Outcome != engine.MemoryLimit || !strings.Contains(r.Fault.Detail, "the sandbox's 128 MiB") {
		t.Errorf("a 256 MiB segment in a 128 MiB sandbox: %+v; want the bot's memory fault at its sandbox's limit", r.Fault)
	}
}

// A one-shot decision of the answer the run's memory watcher stops is that answer's
// memory fault, naming its share of the run (not "the sandbox's 1024 MiB", the bound it
// did not reach). In a run of 600 MB (three answers: a share of 200 MB, a half of 300 MB),
// an honest bot holds 100 MB, another answer 170 MB in four processes, and the decision
// two children of 130 MB: past the watcher's 90 % together, with the decision's answer
// alone above its share.
func TestOneShotStoppedForItsShare(t *testing.T) {
	sb, shares := needShares(t, 600)
	honestBot(t, sb, shares.Answer(AnswerKey(1, 0)))
	memHog(t, sb, shares.Answer(AnswerKey(2, 0)), 4)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte(`
import os, time
for _ in range(2):
    if os.fork() == 0:
        a = bytearray(130 << 20)
        for i in range(0, len(a), 4096): a[i] = 1
        time.sleep(10)
        os._exit(0)
for _ in range(2): os.wait()
print("ok")
`), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // the other answers hold their memory
	l := newTestLauncher(t, sb, ProcSpec{Dir: dir, Argv: []string{"/usr/bin/python3", "bot.py"}, Share: shares.Answer(AnswerKey(3, 0)),
		Limits: Limits{MemoryMB: 1024, Procs: 16, OpenFiles: 64, OutputBytes: 1 << 20}})
	r := l.Launch(context.Background(), Job{Timeout: 30 * time.Second})
	if r.Fault == nil || r.Fault.Outcome != engine.MemoryLimit || !strings.Contains(r.Fault.Detail, "the most above its share of 200 MiB (limits.total_memory_mb 600 MiB among 3 answers)") {
		t.Fatalf("the decision's fault: %+v; want its memory fault for its answer's share", r.Fault)
	}
	if shares.Stops() != 1 {
		t.Errorf("the watcher stopped %d answers; want the one", shares.Stops())
	}
}
