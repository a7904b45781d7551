package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/store"
)

// defaultStopBound is how long kothd may take to exit after SIGTERM or SIGINT when the
// config does not say (stop_timeout); systemd waits 90 s before SIGKILL, Docker 10 s.
const defaultStopBound = 10 * time.Second

// stopBound is the current bound (nanoseconds), set from the config once it is loaded.
var stopBound atomic.Int64

func init() { stopBound.Store(int64(defaultStopBound)) }

// setStopBound applies the config's stop_timeout.
func setStopBound(cfg *config.Config) {
	stopBound.Store(int64(cfg.StopTimeout.D(defaultStopBound)))
}

// processLog is the log of the command running, once it has made one (common.logger):
// the stop's own messages go there, so that under --log-format json every line on stderr
// is JSON. Until then, and when the log's level hides them in text format (once logs
// warnings only, and a person at a terminal wants to see the stop), they are plain lines.
var processLog atomic.Pointer[cmdLog]

type cmdLog struct {
	l    *slog.Logger
	json bool
}

func setProcessLog(l *slog.Logger, json bool) { processLog.Store(&cmdLog{l, json}) }

// stopSay reports a step of a stop.
func stopSay(w io.Writer, level slog.Level, msg string, args ...any) {
	if p := processLog.Load(); p != nil {
		if p.l.Enabled(context.Background(), level) {
			p.l.Log(context.Background(), level, msg, args...)
			return
		}
		if p.json {
			return // filtered out by the level asked for; a plain line would break the JSON
		}
	}
	line := "kothd: " + msg
	for i := 0; i+1 < len(args); i += 2 {
		line += fmt.Sprintf(" %v=%v", args[i], args[i+1])
	}
	fmt.Fprintln(w, line)
}

// stopContext is cancelled by the first SIGTERM or SIGINT: no new game starts, the run in
// progress is recorded as interrupted (the next cycle plays it again) and the command
// returns. Should that take longer than the bound, the process exits by itself (status 1;
// the run left 'running' is found by the next start); a second signal exits at once.
func stopContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-sig
		bound := time.Duration(stopBound.Load())
		stopSay(os.Stderr, slog.LevelInfo, "stop requested; no new game starts, the run in progress is recorded as interrupted", "signal", s.String(), "within", bound)
		cancel()
		select {
		case s = <-sig:
			stopSay(os.Stderr, slog.LevelWarn, "second signal; exiting now", "signal", s.String())
		case <-time.After(bound):
			stopSay(os.Stderr, slog.LevelError, "did not stop within stop_timeout; exiting, the next cycle resumes what was left", "stop_timeout", bound)
		}
		os.Exit(1)
	}()
	return ctx, func() { signal.Stop(sig); cancel() }
}

// stoppedOnRequest reports whether a command ended because a signal asked it to: that is
// a successful stop (status 0), not a failure.
func stoppedOnRequest(ctx context.Context, err error, stderr io.Writer) bool {
	if ctx.Err() == nil {
		return false
	}
	if err == nil || errors.Is(err, context.Canceled) {
		stopSay(stderr, slog.LevelInfo, "stopped on request")
		return true
	}
	return false
}

// lockData takes the config's data directory for this process (see store.LockDir).
func lockData(cfg *config.Config) (*store.Lock, error) {
	return store.LockDir(cfg.DataDir)
}

// releaseOnError gives the lock up when the command failed to set itself up.
func releaseOnError(l *store.Lock, err *error) {
	if *err != nil {
		l.Release()
	}
}
