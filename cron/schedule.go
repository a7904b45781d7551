package cron

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-co-op/gocron/v2"
)

// Serve runs each challenge's cycle on its schedule until ctx ends, then waits for running
// cycles to finish. Each challenge is one singleton job: a cycle that runs long is never
// overlapped by the next tick of the same challenge.
func Serve(ctx context.Context, c *Cycle) error {
	s, err := gocron.NewScheduler()
	if err != nil {
		return fmt.Errorf("create scheduler: %w", err)
	}
	for i := range c.Config.Challenges {
		ch := &c.Config.Challenges[i]
		spec := ch.Schedule
		if spec == "" {
			spec = c.Config.Schedule
		}
		_, err := s.NewJob(
			gocron.CronJob(spec, len(strings.Fields(spec)) == 6), // six fields: with seconds
			gocron.NewTask(func() {
				if _, err := c.Run(ctx, ch, Options{}); err != nil {
					c.Log.Error("cycle failed; the last good leaderboard stays", "challenge", ch.Name, "err", err)
				}
			}),
			gocron.WithName(ch.Name),
			gocron.WithSingletonMode(gocron.LimitModeReschedule),
		)
		if err != nil {
			return fmt.Errorf("schedule %s (%q): %w", ch.Name, spec, err)
		}
		c.Log.Info("scheduled", "challenge", ch.Name, "cron", spec)
	}
	s.Start()
	<-ctx.Done()
	// Shutdown waits for running jobs; their context is already cancelled, so a run in
	// progress stops at its next game boundary and is recorded as failed, not half-published.
	return s.Shutdown()
}
