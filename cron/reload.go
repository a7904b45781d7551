package cron

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-co-op/gocron/v2"

	"github.com/kothd/kothd/config"
)

// A reload (SIGHUP, `systemctl reload kothd`) swaps the daemon's config between cycles,
// never inside one: a tick takes the cycle current when it starts and keeps it to its end,
// so a run in progress finishes, records and publishes with the config it started with.
// The next ticks use the new one; the challenges' jobs are scheduled again from it, and
// what is due under it (a challenge added without a board, a schedule whose time passed)
// is played at once, as at start. The caller (kothd daemon) has read and checked the new
// config and passed its preflight before offering it: a bad one never reaches Serve.

// Reload offers Serve a new cycle (Cycle.Reloads). Serve answers on Done: nil once the new
// cycle is in force, else why it was refused (the old one goes on).
type Reload struct {
	Cycle *Cycle
	Done  chan<- error
}

// RestartOnlyKeys are the config keys a reload cannot change: they shape the process
// (its lock, sandbox, uids, listener, scheduler's zone and run slots, its cluster
// connection and embedded server), not a cycle.
var RestartOnlyKeys = []string{"data_dir", "sandbox", "cgroups", "bot_uid_first", "bot_uid_count", "listen", "timezone", "max_concurrent_runs", "stop_timeout", "cluster"}

// RestartOnlyChanges lists the keys of RestartOnlyKeys whose values differ between old
// and next.
func RestartOnlyChanges(old, next *config.Config) []string {
	var out []string
	for _, k := range config.Changes(old, next) {
		if slices.Contains(RestartOnlyKeys, k) {
			out = append(out, k)
		}
	}
	return out
}

// current is the cycle ticks use now.
func (d *daemon) current() *Cycle {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.c
}

// schedule makes the jobs of c's challenges on s, replacing the ones it had: first every
// schedule is parsed (a bad one changes nothing), then the old jobs go and the new come.
// The first call is Serve's at start.
func (d *daemon) schedule(ctx context.Context, s gocron.Scheduler, c *Cycle) error {
	scheds := map[string]robfigSchedule{}
	bySpec := map[string][]string{}
	var specs []string
	for i := range c.Config.Challenges {
		ch := &c.Config.Challenges[i]
		spec := c.Config.ScheduleOf(ch)
		sched, err := config.ParseSchedule(spec, d.loc)
		if err != nil {
			return fmt.Errorf("challenge %s: %w", ch.Name, err)
		}
		scheds[ch.Name] = sched
		if _, seen := bySpec[spec]; !seen {
			specs = append(specs, spec)
		}
		bySpec[spec] = append(bySpec[spec], ch.Name)
	}
	d.mu.Lock()
	old := d.jobs
	d.jobs = nil
	d.mu.Unlock()
	for _, j := range old {
		if err := s.RemoveJob(j.ID()); err != nil && !errors.Is(err, gocron.ErrJobNotFound) {
			return fmt.Errorf("unschedule %s: %w", j.Name(), err)
		}
	}
	var jobs []gocron.Job
	for _, spec := range specs {
		names := bySpec[spec]
		j, err := s.NewJob(
			// gocron's seconds-optional parser is the one config.ParseSchedule checked with.
			gocron.CronJob(spec, true),
			gocron.NewTask(func() { d.tick(ctx, names, "scheduled") }),
			gocron.WithName(strings.Join(names, ",")),
			gocron.WithSingletonMode(gocron.LimitModeReschedule),
		)
		if err != nil {
			return fmt.Errorf("schedule %s (%q): %w", strings.Join(names, ", "), spec, err)
		}
		jobs = append(jobs, j)
		c.Log.Info("scheduled", "challenges", names, "cron", spec, "timezone", config.ZoneName(d.loc))
	}
	d.mu.Lock()
	d.c, d.scheds, d.jobs = c, scheds, jobs
	d.mu.Unlock()
	c.NextRun = d.next // the boards say when the challenge is played next
	if c.ProgressLog == 0 {
		c.ProgressLog = time.Minute
	}
	return nil
}

// reload puts r's cycle in force: its jobs replace the old ones, and what is due under it
// is played as at start (tracked by wg, which Serve waits for before it returns).
func (d *daemon) reload(ctx context.Context, s gocron.Scheduler, next *Cycle, startup func(names []string)) error {
	old := d.current()
	if keys := RestartOnlyChanges(old.Config, next.Config); len(keys) > 0 {
		return fmt.Errorf("%s changed: that takes a restart (systemctl restart kothd); nothing of the new config is in force", strings.Join(keys, ", "))
	}
	if err := d.schedule(ctx, s, next); err != nil {
		// The old jobs may be gone already: put them back so the daemon goes on as it was.
		if rerr := d.schedule(ctx, s, old); rerr != nil {
			return fmt.Errorf("%w; and the old schedules could not be restored: %v", err, rerr)
		}
		return err
	}
	due, err := d.due(ctx, time.Now())
	if err != nil {
		next.Log.Error("reload: could not tell what is due; the schedules play it", "err", err)
	}
	if len(due) > 0 {
		startup(due)
	}
	for _, ch := range next.Config.Challenges {
		if !slices.Contains(due, ch.Name) {
			d.logNext(ch.Name)
		}
	}
	return nil
}
