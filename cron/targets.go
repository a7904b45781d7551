package cron

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/kothd/kothd/publisher"
)

// Publication targets are independent of play and of each other: the output directory,
// GitHub and any other sink each get their own check, their own attempt and their own
// outcome. One that fails (GitHub answering 502, a revoked token, a full disk) is
// recorded as failed for the challenge, shown by `kothd status`, and tried again by the
// next cycle (store.Pending sees the failed publication); it never stops play nor the
// other targets.

// TargetOutcome is what one publication target did with a challenge's board in a cycle.
type TargetOutcome struct {
	Target    string
	Published bool  // written this cycle
	Current   bool  // already held exactly this board: nothing to do
	Err       error // failed; the next cycle retries
}

// TargetFailure is one target that failed for one challenge.
type TargetFailure struct {
	Challenge, Target string
	Err               error
}

// PublishError reports a cycle that played and recorded what it had to, and published to
// some targets but not all. The boards are kept; the next cycle publishes them.
type PublishError struct{ Failures []TargetFailure }

func (e *PublishError) Error() string {
	var parts []string
	for _, f := range e.Failures {
		parts = append(parts, fmt.Sprintf("%s: publication to %s failed (the next cycle retries it): %v", f.Challenge, f.Target, f.Err))
	}
	return strings.Join(parts, "; ")
}

// publishError collects the failed targets of the reports, or nil.
func publishError(reps []*Report) error {
	var e PublishError
	for _, r := range reps {
		for _, o := range r.Targets {
			if o.Err != nil {
				e.Failures = append(e.Failures, TargetFailure{r.Challenge, o.Target, o.Err})
			}
		}
	}
	if len(e.Failures) == 0 {
		return nil
	}
	return &e
}

// IsPublishOnly reports whether err says only that publication targets failed: play and
// records went well.
func IsPublishOnly(err error) bool {
	_, ok := err.(*PublishError)
	return ok
}

// checkTargets runs every target's write check (publisher.Checker) at once and returns the
// failures by target. A target that fails is not tried again in this cycle (a hanging
// GitHub would cost its deadline twice): its boards are recorded as not published, with
// this error.
func (c *Cycle) checkTargets(ctx context.Context) map[string]error {
	var mu sync.Mutex
	var wg sync.WaitGroup
	down := map[string]error{}
	for _, s := range c.Sinks {
		ch, ok := s.(publisher.Checker)
		if !ok {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := ch.CheckWrite(ctx); err != nil {
				mu.Lock()
				down[s.Target()] = err
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for _, s := range c.Sinks { // in configured order, for a stable log
		if err, ok := down[s.Target()]; ok && ctx.Err() == nil {
			c.Log.Warn("publication target failed its check; play goes on and the next cycle retries it", "target", s.Target(), "err", err)
			c.printf("publication to %s is failing (%v); playing anyway, the next cycle retries it\n", s.Target(), err)
		}
	}
	return down
}
