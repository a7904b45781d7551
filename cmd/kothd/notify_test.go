package main

import (
	"net"
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

// A notification socket nobody reads fills up, and a datagram to a full socket blocks its
// sender: each sdNotify gives up after notifyTimeout with an error instead of holding the
// daemon (its READY, its STOPPING) for ever.
func TestNotifyToAStuckSocketGivesUp(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/notify"
	l, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close() // never read
	t.Setenv("NOTIFY_SOCKET", path)
	old := notifyTimeout
	notifyTimeout = 100 * time.Millisecond
	defer func() { notifyTimeout = old }()
	done := make(chan error, 1)
	go func() {
		var last error
		for i := 0; i < 10000 && last == nil; i++ { // the queue holds a few hundred at most
			last = sdNotify("WATCHDOG=1")
		}
		done <- last
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("10,000 notifications to a socket nobody reads all went through")
		}
	case <-time.After(time.Minute):
		t.Fatal("sdNotify still blocked a minute after the socket stopped taking datagrams")
	}
}
