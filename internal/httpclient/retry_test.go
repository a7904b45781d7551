package httpclient

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"
)

// The backoff doubles after each failure that asks for it, never past Max, and stays when
// a failure does not ask; the loop ends on success, on a Stop, and when a wait is cut short.
func TestRetry(t *testing.T) {
	var waits []time.Duration
	r := Retry{Base: time.Second, Max: 5 * time.Second, Sleep: func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		return nil
	}}
	var backoffs []time.Duration
	err := r.Do(context.Background(), func(n int) error {
		if n == 6 {
			return nil
		}
		return errors.New("transient")
	}, func(n int, err error, backoff time.Duration) Next {
		backoffs = append(backoffs, backoff)
		return Next{Wait: backoff, Grow: n != 2} // the second failure keeps its backoff
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []time.Duration{1e9, 2e9, 2e9, 4e9, 5e9}; !reflect.DeepEqual(backoffs, want) || !reflect.DeepEqual(waits, want) {
		t.Errorf("backoffs %v, waits %v, want %v", backoffs, waits, want)
	}

	stop := errors.New("permanent")
	calls := 0
	if err := r.Do(context.Background(), func(int) error { calls++; return errors.New("x") },
		func(int, error, time.Duration) Next { return Next{Stop: stop} }, nil); err != stop || calls != 1 {
		t.Errorf("stop: %v after %d calls", err, calls)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r.Sleep = nil // the timer: a cancelled context ends the wait at once
	err = r.Do(ctx, func(int) error { return errors.New("x") }, func(int, error, time.Duration) Next { return Next{Wait: time.Hour} },
		func(err error) error { return errors.Join(errors.New("interrupted"), err) })
	if !errors.Is(err, context.Canceled) || err.Error() != "interrupted\ncontext canceled" {
		t.Errorf("interrupted: %v", err)
	}
}
