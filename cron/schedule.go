package cron

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/go-co-op/gocron/v2"
	robfig "github.com/robfig/cron/v3"
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
	d := &daemon{c: c, loc: loc, sem: make(chan struct{}, max(1, c.Config.MaxConcurrentRuns))}
	if err := d.schedule(ctx, s, c); err != nil {
		return err
	}
	due, err := d.due(ctx, time.Now())
	if err != nil {
		return err
	}
	var startup sync.WaitGroup // start-up ticks (and a reload's), which Serve waits for
	playDue := func(names []string) {
		startup.Add(1)
		go func() {
			defer startup.Done()
			d.tick(ctx, names, "start-up: no board yet or a scheduled run was missed")
		}()
	}
	if len(due) > 0 {
		playDue(due)
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
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
		case r := <-c.Reloads:
			err := d.reload(ctx, s, r.Cycle, playDue)
			if r.Done != nil {
				r.Done <- err
			}
		}
	}
	// Shutdown waits for running jobs; their context is already cancelled, so a run in
	// progress stops at its next game boundary and is recorded as interrupted, not
	// half-published.
	startup.Wait()
	return s.Shutdown()
}

// robfigSchedule is a parsed cron expression (config.ParseSchedule's result).
type robfigSchedule = robfig.Schedule

type daemon struct {
	loc *time.Location
	sem chan struct{} // one token per cycle allowed to run at once

	mu     sync.Mutex
	c      *Cycle // the cycle new ticks take (a reload swaps it; reload.go)
	scheds map[string]robfigSchedule
	jobs   []gocron.Job
	busy   map[string]bool // challenges in a cycle now (the start-up tick and a job may meet)
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
	c := d.current()
	var out []string
	for _, ch := range c.Config.Challenges {
		st, err := c.Store.Status(ctx, ch.Name)
		if err != nil {
			return nil, fmt.Errorf("start-up check of %s: %w", ch.Name, err)
		}
		last := st.LastFetch
		if st.LastRun == nil {
			c.Log.Info("due at start", "challenge", ch.Name, "why", "no finished run yet")
			out = append(out, ch.Name)
			continue
		}
		if a, err := c.Store.LastAttempt(ctx, ch.Name); err == nil && a != nil {
			last = max(last, a.Started)
		}
		if next := d.schedOf(ch.Name).Next(time.Unix(last, 0).In(d.loc)); !next.After(now) {
			c.Log.Info("due at start", "challenge", ch.Name, "why", "missed the scheduled run", "missed", next.Format(time.RFC3339), "last_attempt", time.Unix(last, 0).In(d.loc).Format(time.RFC3339))
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
	// The cycle in force now is the tick's to its end, whatever a reload does meanwhile.
	c := d.current()
	log := c.Log
	names = slices.DeleteFunc(slices.Clone(names), func(n string) bool {
		if _, err := c.Config.Challenge(n); err != nil {
			log.Info("not in the config any more (a reload removed it); skipped", "challenge", n)
			return true
		}
		return false
	})
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
	reps, err := c.RunSome(ctx, names, Options{})
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
		c.watch().CycleEnded(err, IsPublishOnly(err))
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
	s := d.schedOf(name)
	if s == nil {
		return nil
	}
	t := s.Next(time.Now().In(d.loc)).UTC()
	return &t
}

// logNext says when a challenge's schedule next fires.
func (d *daemon) logNext(name string) {
	if s := d.schedOf(name); s != nil {
		d.current().Log.Info("next run", "challenge", name, "at", s.Next(time.Now().In(d.loc)).Format(time.RFC3339))
	}
}

// schedOf is the schedule in force of a challenge; nil if it has none.
func (d *daemon) schedOf(name string) robfigSchedule {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.scheds[name]
}
