package pyclass

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/runner/sandbox"
	"github.com/kothd/kothd/runner/sandbox/sandboxtest"
)

// Restarts the host caused never count against a bot. Two answers that each stay under
// their half of a 400 MB run fill it together (the run's memory watcher stopped, as if
// it had been too slow), and the kernel kills the largest process under the run: the
// leader, a bot that holds 100 MB and is within its share. Each kill is a host fault (the
// game voided); before, each also counted as one of the leader's restarts, and after
// MaxRestarts the leader was given up on, "gave up after 20 restarts", its every later
// call its own crash (last on the board, where it had been first).
func TestHostKillsAreNoRestarts(t *testing.T) {
	sb := sandboxtest.NeedBwrap(t)
	shares, err := sandbox.NewShares(sb, 400)
	if err != nil {
		t.Fatal(err)
	}
	defer shares.Close()
	shares.StopWatching()
	for _, answer := range []int64{3, 4} {
		p, err := sb.Command(context.Background(), sandbox.ProcSpec{Dir: t.TempDir(), Share: shares.Answer(sandbox.AnswerKey(answer, 0)),
			Limits: sandbox.Limits{MemoryMB: 1024, Procs: 16, OpenFiles: 64},
			Argv: []string{"/usr/bin/python3", "-c", `
import os, time
for _ in range(4):
    if os.fork() == 0:
        a = bytearray(40 << 20)
        for i in range(0, len(a), 4096): a[i] = 1
        time.sleep(120)
        os._exit(0)
    time.sleep(0.05)
time.sleep(120)
`}})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { p.Kill(); _ = p.Wait(); p.Release() }()
	}
	time.Sleep(2 * time.Second) // the colluders hold their memory

	leader := pyAnswer(t, `
held = bytearray(100 << 20)
for i in range(0, len(held), 4096):
    held[i] = 1
class Leader(Bot):
    def make_throw(self, scores, last_round):
        yield False
`)
	cfg := fortyConfig(2 * time.Second)
	cfg.Shares = shares
	cfg.Limits = sandbox.Limits{MemoryMB: 1024}
	cfg.MaxRestarts = 2
	pool := NewPyPool(sb, cfg, []engine.Bot{{Entrant: engine.Entrant{Name: "Leader"}, AnswerID: 1, Dir: leader}})
	defer pool.Close()
	counts := map[engine.Outcome]int{}
	var faults []string
	for game := 1; game <= 6; game++ {
		r := pool.Exchange(context.Background(), []engine.Call{newCall(game), startCall(game)})
		for _, reply := range r {
			if reply.Fault != nil {
				counts[reply.Fault.Outcome]++
				faults = append(faults, fmt.Sprintf("game %d: %s: %s", game, reply.Fault.Outcome, sandbox.Truncate(reply.Fault.Detail, 160)))
			} else {
				counts[engine.OK]++
			}
		}
	}
	t.Logf("the leader's calls: %v\n%s", counts, strings.Join(faults, "\n"))
	if counts[engine.HostFault] == 0 {
		t.Fatal("the kernel never killed the leader for the run's memory: the test shows nothing")
	}
	for _, f := range faults {
		if strings.Contains(f, "gave up") {
			t.Errorf("the leader was given up on for the host's kills: %s", f)
		}
	}
	if own := counts[engine.Crash] + counts[engine.MemoryLimit] + counts[engine.Killed]; own > 0 {
		t.Errorf("%d of the leader's calls were charged to it: %v", own, counts)
	}
}
