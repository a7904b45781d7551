package main

import (
	"context"
	"net"
	"os"
	"strconv"
	"time"
)

// sdNotify sends a state to systemd (Type=notify) through $NOTIFY_SOCKET, as sd_notify(3)
// does: one datagram. Without the variable (not under systemd) it does nothing. A few
// lines, so no dependency.
func sdNotify(state string) error {
	sock := os.Getenv("NOTIFY_SOCKET")
	if sock == "" {
		return nil
	}
	if sock[0] == '@' { // an abstract socket
		sock = "\x00" + sock[1:]
	}
	conn, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		return err
	}
	defer conn.Close()
	_, err = conn.Write([]byte(state))
	return err
}

// watchdog pings systemd's watchdog (WatchdogSec) at half the interval it asks for
// ($WATCHDOG_USEC, for this pid) until ctx ends. Without it, nothing.
func watchdog(ctx context.Context) {
	usec, err := strconv.ParseInt(os.Getenv("WATCHDOG_USEC"), 10, 64)
	if err != nil || usec <= 0 {
		return
	}
	if pid := os.Getenv("WATCHDOG_PID"); pid != "" && pid != strconv.Itoa(os.Getpid()) {
		return
	}
	every := time.Duration(usec) * time.Microsecond / 2
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				sdNotify("WATCHDOG=1")
			}
		}
	}()
}
