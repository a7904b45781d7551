package cron

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-co-op/gocron/v2"
	robfig "github.com/robfig/cron/v3"

	"github.com/kothd/kothd/config"
)

// Serve runs the challenges' cycles on their schedules until ctx ends, then waits for
// running cycles to finish.
//
// At start it plays what is due: a challenge with no finished run yet (no board), or one
// whose last scheduled time passed since its last attempt (the machine was down at 04:00).
// Challenges that share a schedule share one job, so one tick probes the API once for all
// of them. Jobs are singletons, and at most max_concurrent_runs cycles run at once: bots of
// two challenges played together share the cores and distort each other's time limits.
// Each tick, run, publication and next run is logged, so a host reading the journal knows
// what the daemon did and when it will act next.
func Serve(ctx context.Context, c *Cycle) error {
	loc, err := c.Config.Location()
	if err != nil {
		return err
	}
	if err := c.Preflight(ctx); err != nil { // a host's mistake stops the daemon at start
		return err
	}
	// The stop timeout is the process's stop bound: a stopped run records itself
	// interrupted well within it, and gocron must not give up on it sooner.
	s, err := gocron.NewScheduler(gocron.WithLocation(loc), gocron.WithStopTimeout(c.Config.StopTimeout.D(10*time.Second)))
	if err != nil {
		return fmt.Errorf("create scheduler: %w", err)
	}
	d := &daemon{c: c, loc: loc, sem: make(chan struct{}, max(1, c.Config.MaxConcurrentRuns)), scheds: map[string]robfigSchedule{}}
	c.NextRun = d.next // the boards say when the challenge is played next
	if c.ProgressLog == 0 {
		c.ProgressLog = time.Minute
	}
	bySpec := map[string][]string{}
	var specs []string
	for i := range c.Config.Challenges {
		ch := &c.Config.Challenges[i]
		spec := c.Config.ScheduleOf(ch)
		sched, err := config.ParseSchedule(spec, loc)
		if err != nil {
			return fmt.Errorf("challenge %s: %w", ch.Name, err)
		}
		d.scheds[ch.Name] = sched
		if _, seen := bySpec[spec]; !seen {
			specs = append(specs, spec)
		}
		bySpec[spec] = append(bySpec[spec], ch.Name)
	}
	for _, spec := range specs {
		names := bySpec[spec]
		_, err := s.NewJob(
			// gocron's seconds-optional parser is the one config.ParseSchedule checked with.
			gocron.CronJob(spec, true),
			gocron.NewTask(func() { d.tick(ctx, names, "scheduled") }),
			gocron.WithName(strings.Join(names, ",")),
			gocron.WithSingletonMode(gocron.LimitModeReschedule),
		)
		if err != nil {
			return fmt.Errorf("schedule %s (%q): %w", strings.Join(names, ", "), spec, err)
		}
		c.Log.Info("scheduled", "challenges", names, "cron", spec, "timezone", config.ZoneName(loc))
	}
	due, err := d.due(ctx, time.Now())
	if err != nil {
		return err
	}
	var startup sync.WaitGroup
	if len(due) > 0 {
		startup.Add(1)
		go func() {
			defer startup.Done()
			d.tick(ctx, due, "start-up: no board yet or a scheduled run was missed")
		}()
	}
	for _, ch := range c.Config.Challenges {
		if !slices.Contains(due, ch.Name) {
			d.logNext(ch.Name)
		}
	}
	s.Start()
	if c.Ready != nil {
		c.Ready()
	}
	<-ctx.Done()
	// Shutdown waits for running jobs; their context is already cancelled, so a run in
	// progress stops at its next game boundary and is recorded as interrupted, not
	// half-published.
	startup.Wait()
	return s.Shutdown()
}

// robfigSchedule is a parsed cron expression (config.ParseSchedule's result).
type robfigSchedule = robfig.Schedule

type daemon struct {
	c      *Cycle
	loc    *time.Location
	sem    chan struct{} // one token per cycle allowed to run at once
	scheds map[string]robfigSchedule

	mu   sync.Mutex
	busy map[string]bool // challenges in a cycle now (the start-up tick and a job may meet)
}

// claim marks the named challenges busy and returns those that were free.
func (d *daemon) claim(names []string) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.busy == nil {
		d.busy = map[string]bool{}
	}
	var free []string
	for _, n := range names {
		if !d.busy[n] {
			d.busy[n] = true
			free = append(free, n)
		}
	}
	return free
}

func (d *daemon) release(names []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, n := range names {
		delete(d.busy, n)
	}
}

// due lists the challenges to play at start: those without a finished run, and those
// whose schedule fired since their last attempt (run or fetch) while the daemon was not
// there to see it.
func (d *daemon) due(ctx context.Context, now time.Time) ([]string, error) {
	var out []string
	for _, ch := range d.c.Config.Challenges {
		st, err := d.c.Store.Status(ctx, ch.Name)
		if err != nil {
			return nil, fmt.Errorf("start-up check of %s: %w", ch.Name, err)
		}
		last := st.LastFetch
		if st.LastRun == nil {
			d.c.Log.Info("due at start", "challenge", ch.Name, "why", "no finished run yet")
			out = append(out, ch.Name)
			continue
		}
		if a, err := d.c.Store.LastAttempt(ctx, ch.Name); err == nil && a != nil {
			last = max(last, a.Started)
		}
		if next := d.scheds[ch.Name].Next(time.Unix(last, 0).In(d.loc)); !next.After(now) {
			d.c.Log.Info("due at start", "challenge", ch.Name, "why", "missed the scheduled run", "missed", next.Format(time.RFC3339), "last_attempt", time.Unix(last, 0).In(d.loc).Format(time.RFC3339))
			out = append(out, ch.Name)
		}
	}
	return out, nil
}

// tick runs one cycle for the named challenges once a run slot is free, and logs what it
// found: per challenge, skipped (and why), played, failed, published; then the next run.
func (d *daemon) tick(ctx context.Context, names []string, why string) {
	select {
	case d.sem <- struct{}{}:
	case <-ctx.Done():
		return
	}
	defer func() { <-d.sem }()
	log := d.c.Log
	// A challenge is never in two cycles at once (two runs of one challenge would take each
	// other for interrupted): one still running from another tick sits this one out.
	free := d.claim(names)
	defer d.release(free)
	if len(free) < len(names) {
		log.Info("still running from an earlier tick; skipped this time", "challenges", slices.DeleteFunc(slices.Clone(names), func(n string) bool { return slices.Contains(free, n) }))
	}
	if names = free; len(names) == 0 {
		return
	}
	log.Info("tick", "challenges", names, "why", why)
	start := time.Now()
	reps, err := d.c.RunSome(ctx, names, Options{})
	for _, r := range reps {
		switch {
		case r.Stopped:
			log.Info("run stopped on request; recorded as interrupted, the next cycle plays it again with its seed",
				"challenge", r.Challenge, "run", r.RunID, "seed", r.Seed, "games_done", r.Games, "elapsed", r.Elapsed)
		case r.RunID == 0:
			log.Info("nothing played", "challenge", r.Challenge, "why", r.Skipped)
		default:
			log.Info("played", "challenge", r.Challenge, "run", r.RunID, "seed", r.Seed, "bots", r.Entered,
				"not_entered", len(r.Rejected), "games", r.Games, "elapsed", r.Elapsed)
		}
		for _, target := range r.Published {
			log.Info("published", "challenge", r.Challenge, "run", r.RunID, "target", target)
		}
	}
	if ctx.Err() == nil {
		d.c.watch().CycleEnded(err, IsPublishOnly(err))
	}
	switch {
	case err == nil:
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		log.Info("tick stopped on request", "challenges", names, "elapsed", time.Since(start))
		return
	case IsPublishOnly(err):
		// Played and recorded; only targets failed (each logged by publish). Not a failed
		// cycle: the next one retries them.
		log.Warn("some publications failed; the next cycle retries them", "challenges", names, "err", err)
	default:
		log.Error("cycle failed; the last good leaderboards stay", "challenges", names, "err", err)
	}
	log.Info("tick done", "challenges", names, "elapsed", time.Since(start))
	for _, n := range names {
		d.logNext(n)
	}
}

// next is when a challenge's schedule next fires after now, in UTC; nil if it has none.
func (d *daemon) next(name string) *time.Time {
	s := d.scheds[name]
	if s == nil {
		return nil
	}
	t := s.Next(time.Now().In(d.loc)).UTC()
	return &t
}

// logNext says when a challenge's schedule next fires.
func (d *daemon) logNext(name string) {
	if s := d.scheds[name]; s != nil {
		d.c.Log.Info("next run", "challenge", name, "at", s.Next(time.Now().In(d.loc)).Format(time.RFC3339))
	}
}
