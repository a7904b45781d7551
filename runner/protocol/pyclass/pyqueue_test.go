package pyclass

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kothd/kothd/runner/sandbox"

	"github.com/kothd/kothd/engine"
)

// exchangePool hosts one forty bot (class B in bot.py, source src) for the tests of the
// exchange path (pyqueue.go), unsandboxed.
func exchangePool(t *testing.T, src string, cfg PyConfig) *PyPool {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := InstallTestHarness(dir); err != nil {
		t.Fatal(err)
	}
	cfg.Harness, cfg.Python = "forty", "/usr/bin/python3"
	if cfg.StartTimeout == 0 {
		cfg.StartTimeout = 20 * time.Second
	}
	pool := NewPyPool(sandbox.Unsandboxed{}, cfg, []engine.Bot{{Entrant: engine.Entrant{Name: "B"}, Dir: dir}})
	t.Cleanup(pool.Close)
	return pool
}

func newGame(g, seat int) engine.Call {
	return engine.Call{Bot: 0, Game: g, Method: "new", Args: map[string]int{"seat": seat}}
}

// A bot whose process dies in a batch: that batch's calls fail, and the next batch goes to
// a restarted process (a new game there is answered; a game whose instance died with the
// old process is a lost instance, not an answer made up), and so does the one after it.
func TestBatchAfterACrashGoesToRestartedProcess(t *testing.T) {
	pool := exchangePool(t, `
import os
class B(Bot):
    def __init__(self, seat, end):
        if seat == 7:
            os._exit(3)
        super().__init__(seat, end)
`, PyConfig{CallTimeout: time.Second, MaxRestarts: 2})
	ctx := context.Background()
	// The first batch builds game 0's instance, then the process dies on game 1's.
	ra := pool.Exchange(ctx, []engine.Call{newGame(0, 0), newGame(1, 7)})
	rb := pool.Exchange(ctx, []engine.Call{newGame(2, 0), {Bot: 0, Game: 0, Method: "start", Args: map[string]any{"throws": []int{}, "scores": []int{0, 0}, "last": false}}})
	rc := pool.Exchange(ctx, []engine.Call{newGame(3, 1)})
	for i, r := range ra {
		if r.Fault == nil || r.Fault.Outcome != engine.Crash || !r.Fault.ProcessDied {
			t.Errorf("first batch, call %d: %+v, want a crash that took the process", i, r)
		}
	}
	if rb[0].Fault != nil || string(rb[0].Result) != "true" {
		t.Errorf("next batch's new game: %+v (%v), want it answered by the restarted process", rb[0], rb[0].Fault)
	}
	if f := rb[1].Fault; f == nil || f.Outcome != engine.Crash || !f.ProcessDied {
		t.Errorf("next batch's call of the dead process's game: %+v, want a lost instance", rb[1])
	}
	if rc[0].Fault != nil || string(rc[0].Result) != "true" {
		t.Errorf("the batch after: %+v (%v), want it answered by the same restarted process", rc[0], rc[0].Fault)
	}
	if n := pool.bots[0].restarts; n != 2 {
		t.Errorf("%d processes started, want 2", n)
	}
}

// A bot that defeats the harness's timers and hangs in a batch is killed at that batch's
// deadline; the next batch has a deadline of its own, and the restarted process answers it.
func TestBatchAfterAHangIsAnswered(t *testing.T) {
	pool := exchangePool(t, `
import signal, time
class B(Bot):
    def __init__(self, seat, end):
        if seat == 7:
            signal.signal(signal.SIGALRM, signal.SIG_IGN)
            signal.signal(signal.SIGPROF, signal.SIG_IGN)
            time.sleep(60)
        super().__init__(seat, end)
`, PyConfig{CallTimeout: 100 * time.Millisecond, MaxRestarts: 2})
	ctx := context.Background()
	// Warm the process up first: the hung batch must not owe its time to a start-up.
	if r := pool.Exchange(ctx, []engine.Call{newGame(0, 0)}); r[0].Fault != nil {
		t.Fatalf("warm-up: %v", r[0].Fault)
	}
	ra := pool.Exchange(ctx, []engine.Call{newGame(1, 7)})
	rb := pool.Exchange(ctx, []engine.Call{newGame(2, 0)})
	if f := ra[0].Fault; f == nil || f.Outcome != engine.Timeout || !f.ProcessDied {
		t.Errorf("hung batch: %+v, want a timeout that killed the process", ra[0])
	}
	if rb[0].Fault != nil {
		t.Errorf("next batch: %v, want it answered by the restarted process", rb[0].Fault)
	}
}

// A bot that writes extra lines to the protocol's descriptor behind the harness's back
// leaves lines nobody reads: once its process is closed, the goroutine reading its output
// must end rather than wait for ever to hand them over (one leaked per process per run, in
// a daemon that runs for months).
func TestExtraLinesLeakNoReader(t *testing.T) {
	pool := exchangePool(t, `
import fcntl, os
def _proto_out():
    for fd in range(3, 64):
        try:
            fl = fcntl.fcntl(fd, fcntl.F_GETFL)
        except OSError:
            continue
        if fl & os.O_ACCMODE == os.O_WRONLY and os.readlink("/proc/self/fd/%d" % fd).startswith("pipe:"):
            return fd
class B(Bot):
    def __init__(self, seat, end):
        fd = _proto_out()
        for _ in range(3):
            os.write(fd, b'{"replies":[{"r":true}]}\n')
        super().__init__(seat, end)
`, PyConfig{CallTimeout: time.Second, MaxRestarts: 2})
	if r := pool.Exchange(context.Background(), []engine.Call{newGame(0, 0)}); r[0].Fault != nil {
		t.Fatalf("forged reply: %v", r[0].Fault)
	}
	proc := pool.bots[0].proc
	pool.Close()
	select {
	case <-proc.ReadDone:
	case <-time.After(10 * time.Second): // generous: the reader only has to be scheduled
		t.Fatal("the output reader is still blocked after the process was closed")
	}
}
