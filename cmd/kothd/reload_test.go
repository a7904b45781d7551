package main

import (
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/kothd/kothd/cron"
)

// notifySocket is a fake $NOTIFY_SOCKET: the datagrams the daemon sends, in order.
func notifySocket(t *testing.T) (string, <-chan string) {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "notify")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	got := make(chan string, 100)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := conn.Read(buf)
			if err != nil {
				return
			}
			got <- string(buf[:n])
		}
	}()
	return sock, got
}

// SIGHUP reloads the daemon's config between cycles: a run in progress finishes with the
// config it started with (its games, not the new number), the changes are logged by key and
// the schedules made again; a config with mistakes is refused with every mistake logged,
// and so is a change that takes a restart, the daemon going on with the config it had.
// Around each reload systemd hears RELOADING=1 with MONOTONIC_USEC (our clock, as
// Type=notify-reload checks) and READY=1. Before, SIGHUP ended the daemon.
func TestDaemonReloadsItsConfigBetweenCycles(t *testing.T) {
	sock, got := notifySocket(t)
	t.Setenv("NOTIFY_SOCKET", sock)
	// A run of several seconds, so that the reload comes while it plays: with the C batch
	// loop 4,000 games took 0.8 s, over before the live file said they were under way.
	const games = 60000
	cfg := hostConfig(t, games, "")
	orig, _ := os.ReadFile(cfg)
	p := startKothd(t, "daemon", "--config", cfg, "--snapshot", hostSnapshot(t))
	want := func(what string, within time.Duration) string {
		t.Helper()
		deadline := time.After(within)
		for {
			select {
			case m := <-got:
				if strings.Contains(m, what) {
					return m
				}
			case <-deadline:
				_, errs := p.output()
				t.Fatalf("no %q within %s\n%s", what, within, errs)
			}
		}
	}
	// logSays waits for the log past mark to hold every string: the log comes through a
	// pipe, and may lag the datagram that followed it.
	logSays := func(mark int, what ...string) string {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			_, errs := p.output()
			tail, all := errs[mark:], true
			for _, w := range what {
				all = all && strings.Contains(tail, w)
			}
			if all {
				return errs
			}
			if time.Now().After(deadline) {
				t.Errorf("the log does not say all of %q:\n%s", what, tail)
				return errs
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	want("READY=1", 2*time.Minute)
	// Wait for forty's run to be under way.
	dataDir := filepath.Join(filepath.Dir(cfg), "data")
	deadline := time.Now().Add(3 * time.Minute)
	for {
		if l, _ := cron.ReadLive(dataDir, "forty"); l != nil && l.Done > 0 && l.Done < l.Total {
			break
		}
		if time.Now().After(deadline) {
			_, errs := p.output()
			t.Fatalf("forty's run never got under way:\n%s", errs)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// A good change: the schedule and forty's games.
	to := awaySchedule(13, 30)
	next := regexp.MustCompile(`(?m)^schedule: "[^"]*"`).ReplaceAllLiteralString(string(orig), to)
	next = strings.Replace(next, "    games: "+strconv.Itoa(games)+"\n", "    games: 5000\n", 1)
	if next == string(orig) {
		t.Fatal("config.yaml changed shape: no schedule or games line to change")
	}
	if err := os.WriteFile(cfg, []byte(next), 0o644); err != nil {
		t.Fatal(err)
	}
	var before unix.Timespec
	unix.ClockGettime(unix.CLOCK_MONOTONIC, &before)
	_ = p.cmd.Process.Signal(syscall.SIGHUP)
	m := want("RELOADING=1", 30*time.Second)
	usec := regexp.MustCompile(`MONOTONIC_USEC=(\d+)`).FindStringSubmatch(m)
	if usec == nil {
		t.Fatalf("RELOADING=1 without MONOTONIC_USEC: %q", m)
	}
	if n, _ := strconv.ParseInt(usec[1], 10, 64); n < before.Nano()/1000 || n > before.Nano()/1000+60e6 {
		t.Errorf("MONOTONIC_USEC=%d is not this machine's monotonic clock (%d at SIGHUP)", n, before.Nano()/1000)
	}
	want("READY=1", time.Minute)
	errs := logSays(0, "config reloaded", "challenges.forty.games", `cron="`+strings.TrimSuffix(strings.TrimPrefix(to, `schedule: "`), `"`)+`"`)
	// The run in progress ends as it began: its own number of games, not stopped.
	deadline = time.Now().Add(5 * time.Minute)
	for !strings.Contains(errs, "run finished") {
		if time.Now().After(deadline) {
			t.Fatalf("forty's run did not finish:\n%s", errs)
		}
		time.Sleep(100 * time.Millisecond)
		_, errs = p.output()
	}
	if !regexp.MustCompile(`run finished" challenge=forty run=1 .*games=`+strconv.Itoa(games)+` `).MatchString(errs) ||
		strings.Contains(errs, "stopped on request") {
		t.Errorf("the run in progress did not finish with its own config:\n%s", errs)
	}

	// Mistakes: each is logged, and the daemon goes on.
	bad := strings.Replace(next, "    games: 5000\n", "    games: 1.5\n", 1) + "bogus_key: 1\n"
	if err := os.WriteFile(cfg, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	mark := len(errs)
	_ = p.cmd.Process.Signal(syscall.SIGHUP)
	want("RELOADING=1", 30*time.Second)
	want("READY=1", time.Minute)
	errs = logSays(mark, "reload refused", "bogus_key", "games")
	if tail := errs[mark:]; strings.Count(tail, "level=ERROR msg=\"reload: ") < 2 {
		t.Errorf("a bad config's mistakes are not each logged:\n%s", tail)
	}
	// A key that takes a restart.
	moved := strings.Replace(next, "data_dir: data ", "data_dir: elsewhere ", 1)
	if err := os.WriteFile(cfg, []byte(moved), 0o644); err != nil {
		t.Fatal(err)
	}
	mark = len(errs)
	_ = p.cmd.Process.Signal(syscall.SIGHUP)
	want("RELOADING=1", 30*time.Second)
	want("READY=1", time.Minute)
	errs = logSays(mark, "data_dir changed: that takes a restart")
	select {
	case <-p.done:
		t.Fatalf("the daemon ended after a refused reload: %v\n%s", p.waitErr, errs)
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	if code := p.wait(t, 30*time.Second); code != 0 {
		t.Errorf("exit %d", code)
	}
}
