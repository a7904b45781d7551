package cron

import (
	"context"

	"github.com/kothd/kothd/config"
)

// pending is what the store says is unfinished for a challenge (see store.Pending): such
// a challenge is fetched and played or republished even when the API shows no activity,
// so an interrupted run, a board never stored or a failed publication is finished by the
// next cycle.
func (c *Cycle) pending(ctx context.Context, ch *config.Challenge) string {
	targets := make([]string, len(c.Sinks))
	for i, s := range c.Sinks {
		targets[i] = s.Target()
	}
	why, err := c.Store.Pending(ctx, ch.Name, targets)
	if err != nil {
		c.Log.Error("read pending work; fetching", "challenge", ch.Name, "err", err)
		return "the store could not say whether work is pending"
	}
	if why == "" {
		why = c.questionOwed(ctx, ch)
	}
	if why == "" {
		why = c.commentsQueued(ctx, ch.Name)
	}
	if why == "" {
		why = c.settingsChanged(ctx, ch)
	}
	return why
}
