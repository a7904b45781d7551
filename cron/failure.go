package cron

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
)

// endRun records why a started run did not finish: 'interrupted' when the cycle was asked
// to stop (the next cycle plays it again), else 'failed' with what went wrong, named so a
// host can act on it (a full disk says so). It uses a context that outlives the stop, so
// the run is never left 'running'.
func (c *Cycle) endRun(ctx context.Context, runID int64, err error) {
	wctx := context.WithoutCancel(ctx)
	var rerr error
	if ctx.Err() != nil {
		rerr = c.Store.InterruptRun(wctx, runID)
	} else {
		rerr = c.Store.FailRun(wctx, runID, failureReason(err))
	}
	if rerr != nil {
		c.Log.Error("record the end of a run", "run", runID, "err", rerr, "cause", err)
	}
}

// failureReason names a run's failure for the store and the log.
func failureReason(err error) string {
	if diskFull(err) {
		return "disk full: " + err.Error()
	}
	return err.Error()
}

// diskFull reports whether err comes from a full disk or quota: the runner, the copies of
// bot directories and SQLite all say it differently.
func diskFull(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return true
	}
	s := strings.ToLower(err.Error())
	return strings.Contains(s, "no space left on device") || strings.Contains(s, "database or disk is full") ||
		strings.Contains(s, "disk quota exceeded")
}

// describe wraps a cycle error so a full disk reads as one.
func describe(err error) error {
	if diskFull(err) && !strings.HasPrefix(err.Error(), "disk full") {
		return fmt.Errorf("disk full: %w", err)
	}
	return err
}
