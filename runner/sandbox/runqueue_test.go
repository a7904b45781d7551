package sandbox

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A bot the host keeps from a CPU past its reply deadline is waited for (runqueue.go); a
// bot that only keeps itself waiting is not. The bots run in the real bwrap sandbox, whose
// cgroup says how much CPU each used, pinned to CPU 0 from outside (startPinned): a bot
// may not pin itself (the seccomp filter denies sched_setaffinity).
func TestReplyDeadlineGivesBackTheHostsWait(t *testing.T) {
	sb := NeedBwrap(t)
	reply := func(work string) ([]byte, string, time.Duration) {
		t.Helper()
		script := "import sys, time, threading, hashlib, os\nsys.stdin.readline()\n" + work + "\nprint('done', flush=True)\nsys.stdin.readline()\n"
		p, err := startPinned(t, sb, ProcSpec{Dir: t.TempDir(), Argv: []string{"/usr/bin/python3", "-c", script},
			Limits: Limits{MemoryMB: 1024, Procs: 32, OpenFiles: 64, OutputBytes: 1 << 20}})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		start := time.Now()
		line, f := p.RoundTrip([]byte("go"), time.Second)
		if f != nil {
			return nil, string(f.Outcome) + ": " + f.Detail, time.Since(start)
		}
		return line, "", time.Since(start)
	}
	killedAtDeadline := func(what, fault string, took time.Duration) {
		t.Helper()
		if !strings.Contains(fault, "no reply within 1s; process killed") {
			t.Errorf("%s: %q; want it killed at its deadline", what, fault)
		}
		if took > 3*time.Second {
			t.Errorf("%s was waited for %v: its own doing was taken for the host's", what, took)
		}
	}

	// Twelve threads of the bot's own wake together every 40 ms on its CPU and queue for
	// it (hashlib lets go of the interpreter's lock): summed, their waits come to about
	// twice the wall time, on well under half a CPU, while the thread that would reply
	// sleeps.
	_, fault, took := reply("data = b'x' * (512 << 10)\n" +
		"def burst():\n    while True:\n        time.sleep(0.04 - time.monotonic() % 0.04)\n        hashlib.sha256(data).digest()\n" +
		"for _ in range(12):\n    threading.Thread(target=burst, daemon=True).start()\ntime.sleep(30)")
	killedAtDeadline("a bot whose threads keep each other waiting", fault, took)

	// Three spinners, each in a sandbox of its own like the other bots of a run, share CPU
	// 0 with the bot: its 0.35 s of work takes about four times that in wall time, past
	// the 1 s deadline.
	for range 3 {
		spin, err := startPinned(t, sb, ProcSpec{Dir: t.TempDir(), Argv: []string{"/usr/bin/python3", "-c", "while True: pass"},
			Limits: Limits{MemoryMB: 1024, Procs: 8, OpenFiles: 64, OutputBytes: 1 << 20}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(spin.Close)
	}
	if line, fault, _ := reply("t = time.process_time()\nwhile time.process_time() - t < 0.35: pass"); fault != "" || string(line) != "done" {
		t.Errorf("a bot kept from the CPU: %q, %s; want its reply", line, fault)
	}
	// A bot that sleeps waits for no CPU. (Its start-up may wait for one; that is given back.)
	_, fault, took = reply("time.sleep(30)")
	killedAtDeadline("a sleeping bot", fault, took)
}

// startPinned starts a line process whose sandbox runs on CPU 0 only: the process is
// started from a thread pinned to it, whose CPU mask every process it starts inherits.
func startPinned(t *testing.T, sb Sandbox, spec ProcSpec) (*LineProc, error) {
	t.Helper()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var all, cpu0 unix.CPUSet
	if err := unix.SchedGetaffinity(0, &all); err != nil {
		t.Skipf("sched_getaffinity: %v", err)
	}
	cpu0.Set(0)
	if err := unix.SchedSetaffinity(0, &cpu0); err != nil {
		t.Skipf("sched_setaffinity: %v", err)
	}
	defer unix.SchedSetaffinity(0, &all)
	p, err := StartLineProc(context.Background(), sb, spec)
	if err == nil {
		if cpus := procStatus(p.Proc.Cmd.Process.Pid, "Cpus_allowed_list"); cpus != "0" {
			t.Fatalf("the sandbox runs on CPUs %q, not CPU 0 alone", cpus)
		}
	}
	return p, err
}
