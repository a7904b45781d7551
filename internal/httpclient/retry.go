package httpclient

import (
	"context"
	"time"
)

// Retry is the loop kothd's HTTP clients (the API's, GitHub's) retry a failed call with:
// attempt, ask the caller what the failure calls for, wait, attempt again. Which failures
// are worth another attempt, for how long to wait, and what to tell the host stay with each
// client, since the API and GitHub fail differently; what is shared is the loop, the
// doubling backoff, and waiting that a cancelled context cuts short.
type Retry struct {
	// Base is the first backoff; each failure that asks for it (Next.Grow) doubles it, up
	// to Max.
	Base, Max time.Duration
	// Sleep waits d unless ctx ends first (then it returns an error). Nil: a timer, and
	// context.Cause when ctx ends. Tests pass a fake clock's.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Next is what a failed attempt calls for.
type Next struct {
	Stop error         // non-nil: give up and return it
	Wait time.Duration // otherwise, wait this long before the next attempt
	Grow bool          // and double the backoff after the wait (a transient failure)
}

// Do calls attempt with n = 1, 2, … until it returns nil (Do returns nil) or failed says
// stop. failed gets the attempt's number, its error and the current backoff. When the wait
// before the next attempt is cut short, Do returns interrupted(the sleep's error), or the
// sleep's error itself when interrupted is nil.
func (r Retry) Do(ctx context.Context, attempt func(n int) error, failed func(n int, err error, backoff time.Duration) Next, interrupted func(error) error) error {
	backoff := r.Base
	for n := 1; ; n++ {
		err := attempt(n)
		if err == nil {
			return nil
		}
		next := failed(n, err, backoff)
		if next.Stop != nil {
			return next.Stop
		}
		if err := r.sleep(ctx, next.Wait); err != nil {
			if interrupted != nil {
				return interrupted(err)
			}
			return err
		}
		if next.Grow {
			backoff = min(2*backoff, r.Max)
		}
	}
}

func (r Retry) sleep(ctx context.Context, d time.Duration) error {
	if r.Sleep != nil {
		return r.Sleep(ctx, d)
	}
	return Sleep(ctx, d)
}

// Sleep waits d, or until ctx is done (then it returns ctx's cause).
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}
