package main

import (
	"context"
	"errors"
	"fmt"
	"io"
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
		fmt.Fprintf(os.Stderr, "kothd: %s received; stopping (at most %s)\n", s, bound)
		cancel()
		select {
		case s = <-sig:
			fmt.Fprintf(os.Stderr, "kothd: second %s; exiting now\n", s)
		case <-time.After(bound):
			fmt.Fprintf(os.Stderr, "kothd: did not stop within %s (stop_timeout); exiting, the next cycle resumes what was left\n", bound)
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
		fmt.Fprintln(stderr, "kothd: stopped on request")
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
