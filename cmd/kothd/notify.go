package main

import (
	"context"
	"net"
	"os"
	"strconv"
	"time"
)

// notifyTimeout bounds one notification: a datagram socket whose reader has stopped
// reading blocks its writers once its queue is full, and a daemon stuck there (at its
// READY, its STOPPING, its watchdog's ping) would never stop or schedule again.
var notifyTimeout = 2 * time.Second

// sdNotify sends a state to systemd (Type=notify) through $NOTIFY_SOCKET, as sd_notify(3)
// does: one datagram. Without the variable (not under systemd) it does nothing. A few
// lines, so no dependency. A notification that cannot be sent within notifyTimeout is
// dropped with an error: systemd then sees a missed ping, which is what happened.
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
	if err := conn.SetWriteDeadline(time.Now().Add(notifyTimeout)); err != nil {
		return err
	}
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
