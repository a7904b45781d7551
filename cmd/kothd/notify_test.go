package main

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// The daemon under systemd's Type=notify: READY=1 once it serves its schedules, WATCHDOG=1
// at half WatchdogSec's interval, STOPPING=1 on SIGTERM, all through $NOTIFY_SOCKET.
func TestDaemonNotifiesSystemd(t *testing.T) {
	sock, got := notifySocket(t)
	cfg := hostConfig(t, 200000, "")
	t.Setenv("NOTIFY_SOCKET", sock)
	t.Setenv("WATCHDOG_USEC", "400000")
	p := startKothd(t, "daemon", "--config", cfg, "--snapshot", hostSnapshot(t))
	want := func(what string, within time.Duration) {
		t.Helper()
		deadline := time.After(within)
		for {
			select {
			case m := <-got:
				if strings.Contains(m, what) {
					return
				}
			case <-deadline:
				_, errs := p.output()
				t.Fatalf("no %q within %s\n%s", what, within, errs)
			}
		}
	}
	want("READY=1", 2*time.Minute)
	want("WATCHDOG=1", 10*time.Second)
	want("WATCHDOG=1", 10*time.Second)
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	want("STOPPING=1", 10*time.Second)
	if code := p.wait(t, 30*time.Second); code != 0 {
		t.Errorf("exit %d", code)
	}
}
