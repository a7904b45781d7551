package cron

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-co-op/gocron/v2"
)

// Serve runs the challenges' cycles on their schedules until ctx ends, then waits for
// running cycles to finish. Challenges that share a schedule share one job, so one tick
// probes the API once for all of them (a check in which nothing changed costs one
// request). Jobs are singletons: a long cycle is never overlapped by the next tick.
func Serve(ctx context.Context, c *Cycle) error {
	s, err := gocron.NewScheduler()
	if err != nil {
		return fmt.Errorf("create scheduler: %w", err)
	}
	bySpec := map[string][]string{}
	var specs []string
	for _, ch := range c.Config.Challenges {
		spec := ch.Schedule
		if spec == "" {
			spec = c.Config.Schedule
		}
		if _, seen := bySpec[spec]; !seen {
			specs = append(specs, spec)
		}
		bySpec[spec] = append(bySpec[spec], ch.Name)
	}
	for _, spec := range specs {
		names := bySpec[spec]
		_, err := s.NewJob(
			gocron.CronJob(spec, len(strings.Fields(spec)) == 6), // six fields: with seconds
			gocron.NewTask(func() {
				if _, err := c.RunSome(ctx, names, Options{}); err != nil {
					c.Log.Error("cycle failed; the last good leaderboards stay", "challenges", names, "err", err)
				}
			}),
			gocron.WithName(strings.Join(names, ",")),
			gocron.WithSingletonMode(gocron.LimitModeReschedule),
		)
		if err != nil {
			return fmt.Errorf("schedule %s (%q): %w", strings.Join(names, ", "), spec, err)
		}
		c.Log.Info("scheduled", "challenges", names, "cron", spec)
	}
	s.Start()
	<-ctx.Done()
	// Shutdown waits for running jobs; their context is already cancelled, so a run in
	// progress stops at its next game boundary and is recorded as failed, not half-published.
	return s.Shutdown()
}
