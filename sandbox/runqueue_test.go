package sandbox

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// A bot the host keeps from a CPU past its reply deadline is waited for (runqueue.go): three
// spinners share CPU 0 with it, so its 0.35 s of work takes about four times that in wall time,
// past a 1 s deadline. A bot that sleeps past the deadline waits for no CPU and is killed
// at its deadline.
func TestReplyDeadlineGivesBackTheHostsWait(t *testing.T) {
	if _, err := exec.LookPath("taskset"); err != nil {
		t.Skip("taskset is not installed")
	}
	for range 3 {
		spin := exec.Command("taskset", "-c", "0", "/usr/bin/python3", "-c", "while True: pass")
		if err := spin.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { spin.Process.Kill(); spin.Wait() })
	}
	reply := func(work string) ([]byte, string) {
		t.Helper()
		script := "import sys, time\nsys.stdin.readline()\n" + work + "\nprint('done', flush=True)\nsys.stdin.readline()\n"
		p, err := StartLineProc(context.Background(), Unsandboxed{}, ProcSpec{Dir: t.TempDir(), Argv: []string{"taskset", "-c", "0", "/usr/bin/python3", "-c", script}})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		line, f := p.RoundTrip([]byte("go"), time.Second)
		if f != nil {
			return nil, string(f.Outcome) + ": " + f.Detail
		}
		return line, ""
	}
	if line, fault := reply("t = time.process_time()\nwhile time.process_time() - t < 0.35: pass"); fault != "" || string(line) != "done" {
		t.Errorf("a bot kept from the CPU: %q, %s; want its reply", line, fault)
	}
	// (Its start-up may wait for the CPU, and that wait is given back; its sleep is not.)
	start := time.Now()
	if _, fault := reply("time.sleep(30)"); !strings.Contains(fault, "no reply within 1s") || !strings.Contains(fault, "process killed") {
		t.Errorf("a sleeping bot: %q; want it killed", fault)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a sleeping bot was waited for %v: its sleep was taken for the host's doing", d)
	}
}
