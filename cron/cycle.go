// Package cron runs kothd's cycle (probe → fetch → diff → prepare → play → record →
// publish) for each configured challenge, once or on a schedule. It is where the parts
// meet: the scraper, the store, the runner's sandbox, the engines and the publisher are
// called from here and not from each other (the store reads the scraper's submissions and
// the engine's results; the publisher renders engine results; the engines import only
// leaf packages). docs/architecture.md lists every package's imports.
package cron

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/publisher"
	"github.com/kothd/kothd/runner/protocol"
	"github.com/kothd/kothd/runner/sandbox"
	"github.com/kothd/kothd/scraper"
	"github.com/kothd/kothd/store"
)

// Cycle holds the parts one cycle uses.
type Cycle struct {
	Config  *config.Config
	Store   *store.Store
	Source  scraper.Source
	Sandbox sandbox.Sandbox
	Sinks   []publisher.Sink
	Log     *slog.Logger
	Out     io.Writer // progress for a person watching; io.Discard in the daemon
	// AllowOlderBoard publishes even over a published board of a later run than this
	// database's newest (see guardBoard): the host's explicit choice after losing the database.
	AllowOlderBoard bool
	// ProgressLog, when set, also logs a run's progress (games, rate, ETA) this often:
	// the daemon's journal shows that a long run is alive and when it will end.
	ProgressLog time.Duration
	// Games are the games the cycle can play; nil: every game of this build (engine/all).
	Games *engine.Registry
	// Meter, when set, is called as a run's games start (each attempt's, when a run is
	// played again with fewer games in flight: crowd.go); kothd bench measures a run's CPU
	// and decisions with what it returns.
	Meter func(challenge string) Metering
	// Question edits the questions of challenges with question_board enabled (question.go);
	// nil: no client for it (a snapshot run), which each such challenge reports.
	Question *QuestionEditor
	// NextRun, when set, says when the schedule plays a challenge next, for the board
	// ("Next run: …"). Serve sets it; nil (kothd once): the board says the host runs it.
	NextRun func(challenge string) *time.Time
	// Ready, when set, is called by Serve once the preflight passed and the schedules run
	// (the daemon tells systemd it is ready).
	Ready func()
	// Reloads, when set, offers Serve new cycles between ticks (kothd daemon on SIGHUP;
	// reload.go).
	Reloads <-chan Reload
	// Watch, when set, is told runs, decisions, progress, publications and ticks (the
	// daemon's metrics).
	Watch Watcher
	// Cluster, when set, plays the runs of games that can be sharded (engine.Sharding)
	// through its workers, shard by shard (shard.go); nil: every run is played here, whole.
	Cluster Distributor
}

// nextRun is when the challenge is played next, or nil when no schedule plays it.
func (c *Cycle) nextRun(challenge string) *time.Time {
	if c.NextRun == nil {
		return nil
	}
	return c.NextRun(challenge)
}

// Options adjust one cycle.
type Options struct {
	Seed  *uint64 // nil: a fresh random seed (recorded with the run)
	Games int     // 0: the challenge's configured number
	Force bool    // play even if nothing changed since the last run

	down map[string]error // publication targets that failed their check this cycle
}

// Report says what a cycle did for one challenge.
type Report struct {
	Challenge string
	Skipped   string // why nothing was played (engine not available, nothing changed)
	Answers   int
	Changes   []store.Change
	Entered   int
	Rejected  []publisher.Rejected
	RunID     int64
	Seed      uint64
	Games     int // games scored (the board's)
	// Played is every game the run played, scored or not (Mafia's abandoned games, games
	// voided by host faults): what its time went to. 0 when the run failed.
	Played    int
	Elapsed   time.Duration
	Stopped   bool            // the run was stopped on request (Games: those done by then)
	Published []string        // targets written
	Targets   []TargetOutcome // every publication target's outcome, when there was a board
}

// RunAll runs the cycle for every configured challenge (or the one named). A failure in one
// challenge is reported and the others still run.
func (c *Cycle) RunAll(ctx context.Context, only string, opts Options) ([]*Report, error) {
	var names []string
	if only != "" {
		names = []string{only}
	}
	return c.RunSome(ctx, names, opts)
}

// RunSome runs the cycle for the named challenges (all when names is empty), in config
// order, after one probe of the API for all of them. The error is a challenge's failure
// (the first), else a *PublishError when only publication targets failed.
func (c *Cycle) RunSome(ctx context.Context, names []string, opts Options) ([]*Report, error) {
	var chs []*config.Challenge
	for i := range c.Config.Challenges {
		if len(names) == 0 || slices.Contains(names, c.Config.Challenges[i].Name) {
			chs = append(chs, &c.Config.Challenges[i])
		}
	}
	if err := c.Preflight(ctx); err != nil {
		return nil, err
	}
	opts.down = c.checkTargets(ctx)
	probed, unchanged := c.probe(ctx, chs, opts.Force || opts.Seed != nil)
	c.noteQuestionEdits(ctx, chs, probed)
	var reports []*Report
	var firstErr error
	for _, ch := range chs {
		_, known := probed[ch.QuestionID]
		if unchanged[ch.Name] && known {
			// Pending work comes from the store, not the API: what the last cycle left
			// unfinished is finished now, whatever the probe says.
			if why := c.pending(ctx, ch); why != "" {
				c.printf("%s: no activity on the question, but %s; finishing it\n", ch.Name, why)
				c.Log.Info("pending work", "challenge", ch.Name, "why", why)
				unchanged[ch.Name] = false
			}
		}
		if unchanged[ch.Name] {
			why := "no activity on the question since the last fetch; the leaderboard stands"
			if !known {
				why = fmt.Sprintf("question %d not found by the API (deleted?); the last good data stays", ch.QuestionID)
			}
			rep := &Report{Challenge: ch.Name, Skipped: why}
			c.printf("%s: %s\n", ch.Name, rep.Skipped)
			reports = append(reports, rep)
			continue
		}
		rep, err := c.Run(ctx, ch, opts)
		if IsPublishOnly(err) {
			err = nil // played and recorded; the failed targets are in rep.Targets
		}
		if err == nil {
			c.rememberSettings(ctx, ch)
			if in, ok := probed[ch.QuestionID]; ok {
				if err := c.Store.SetQuestionState(ctx, ch.Name, in.AnswerCount, in.LastActivityDate); err != nil {
					c.Log.Error("record question state", "challenge", ch.Name, "err", err)
				}
			}
		}
		stopped := err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled)
		if err != nil && !stopped { // a requested stop (SIGTERM) is no failure: the caller says so
			c.Log.Error("cycle failed; the last good leaderboard stays", "challenge", ch.Name, "err", err)
			if firstErr == nil {
				firstErr = fmt.Errorf("%s: %w", ch.Name, err)
			}
		}
		if rep != nil {
			reports = append(reports, rep)
		}
		if ctx.Err() != nil {
			return reports, ctx.Err()
		}
	}
	if len(names) > 0 && len(reports) == 0 && firstErr == nil {
		return nil, fmt.Errorf("no challenge named %s in the config", strings.Join(names, ", "))
	}
	if firstErr == nil {
		firstErr = publishError(reports)
	}
	return reports, firstErr
}

// Run runs one cycle for one challenge. When it played and recorded but some publication
// targets failed, the error is a *PublishError (IsPublishOnly).
func (c *Cycle) Run(ctx context.Context, ch *config.Challenge, opts Options) (*Report, error) {
	rep := &Report{Challenge: ch.Name}
	if _, err := c.games().Lookup(ch.Engine); err != nil {
		rep.Skipped = err.Error()
		c.printf("%s: %s, skipped\n", ch.Name, rep.Skipped)
		c.Log.Warn("challenge skipped", "challenge", ch.Name, "reason", rep.Skipped)
		return rep, nil
	}
	env, proto, err := c.newEnv(ch)
	if err != nil {
		return rep, err // the challenge's configuration does not fit its engine
	}
	subs, err := c.fetch(ctx, ch, rep)
	if err != nil {
		return rep, err
	}
	if err := c.checkLanguages(ch, subs); err != nil {
		return rep, err
	}
	if err := c.prepare(ctx, env, proto, subs, rep); err != nil {
		return rep, err
	}
	if err := allFailedAlike(rep); err != nil {
		return rep, err
	}
	if err := c.play(ctx, env, proto, opts, rep); err != nil {
		return rep, err
	}
	return rep, publishError([]*Report{rep})
}

// fetch gets the answers, extracts submissions and records what changed.
func (c *Cycle) fetch(ctx context.Context, ch *config.Challenge, rep *Report) ([]scraper.Submission, error) {
	answers, err := c.Source.Answers(ctx, ch.QuestionID)
	if err != nil {
		return nil, err // the sources name the question and the page in their errors
	}
	if len(answers) == 0 {
		// A question that really lost every answer is rare; an API or snapshot that returns
		// nothing by mistake is not, and recording it would retire every bot.
		if st, err := c.Store.Status(ctx, ch.Name); err == nil && st.Answers > 0 {
			return nil, fmt.Errorf("question %d returned no answers although %d are recorded; keeping the last good data", ch.QuestionID, st.Answers)
		}
	}
	subs := scraper.ExtractAll(answers, scraper.RulesFromConfig(c.Config, ch))
	rep.Answers = len(answers)
	if rep.Changes, err = c.Store.RecordAnswers(ctx, ch.Name, ch.QuestionID, subs); err != nil {
		return nil, err
	}
	c.siteRevisions(ctx, ch, rep.Changes)
	counts := map[string]int{}
	for _, ch := range rep.Changes {
		counts[ch.Kind]++
	}
	c.printf("%s: %d answers (%d new, %d edited, %d deleted, %d unchanged)\n", ch.Name, len(answers),
		counts["new"], counts["edited"], counts["deleted"], counts["unchanged"])
	return subs, nil
}

// siteRevisions asks the source for the revision numbers (on the site) of the answers a
// fetch found new, edited or restored, and records them for the board. A source that cannot
// tell (a snapshot) is not asked; a failure costs the board only those numbers, so it is
// logged and the cycle goes on.
func (c *Cycle) siteRevisions(ctx context.Context, ch *config.Challenge, changes []store.Change) {
	rv, ok := c.Source.(scraper.Reviser)
	if !ok {
		return
	}
	var ids []int64
	for _, x := range changes {
		if x.Kind == "new" || x.Kind == "edited" || x.Kind == "restored" {
			ids = append(ids, x.AnswerID)
		}
	}
	if len(ids) == 0 {
		return
	}
	numbers, err := rv.RevisionNumbers(ctx, ids)
	if err == nil {
		err = c.Store.SetSiteRevisions(ctx, ch.Name, numbers)
	}
	if err != nil {
		c.Log.Warn("answers' revision numbers not recorded; the board shows the versions kothd has seen", "challenge", ch.Name, "err", err)
	}
}

// newSeed draws a fresh master seed from the operating system.
func newSeed() uint64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return uint64(time.Now().UnixNano())
	}
	return binary.LittleEndian.Uint64(b[:])
}

func (c *Cycle) printf(format string, args ...any) {
	if c.Out != nil {
		fmt.Fprintf(c.Out, format, args...)
	}
}

// Metering measures one attempt at a run (Cycle.Meter).
type Metering struct {
	// Loaded, when set, is called once the run's bots are loaded, before its first game,
	// when its protocol loads them ahead (engine.Loader), with the CPU time the bots' side
	// spent on it as far as the protocol measured it (running sandboxes; a failed start's
	// is counted where its sandbox's is, once released).
	Loaded func(botsCPU time.Duration)
	// Done is called once the games have ended and the bots' processes are gone, with
	// each bot's accounting (nil if the run failed).
	Done func(stats []*protocol.Stats)
}

// progressPrinter prints a progress line with rate and ETA at most once a second, and
// logs one every ProgressLog when that is set. With live set, it also replaces the live
// run's file (for `kothd status`) as often as it prints.
func (c *Cycle) progressPrinter(name string, live *LiveRun) engine.Progress {
	start := time.Now()
	last, logged := start, start // the first line after a second, when the rate means something
	return func(done, total int) {
		now := time.Now()
		doLog := c.ProgressLog > 0 && now.Sub(logged) >= c.ProgressLog && done != total
		if done != total && now.Sub(last) < time.Second && !doLog {
			return
		}
		last = now
		el := now.Sub(start).Seconds()
		rate := float64(done) / max(el, 1e-9)
		eta := time.Duration(float64(total-done)/max(rate, 1e-9)) * time.Second
		if live != nil {
			live.Done, live.Total, live.Rate, live.ETA = done, total, rate, eta.Seconds()
			c.writeLive(live)
			c.watch().Progress(name, done)
		}
		shards := ""
		if live != nil && live.Shards != nil {
			st := live.Shards
			shards = fmt.Sprintf(", shards %d queued, %d in flight, %d done", st.Queued, st.InFlight, st.Done)
		}
		c.printf("%s: games %d/%d (%.0f%%), %s games/s, ETA %s%s\n", name, done, total, 100*float64(done)/float64(max(total, 1)), rateText(rate), eta.Round(time.Second), shards)
		if doLog {
			logged = now
			c.Log.Info("progress", "challenge", name, "games", done, "of", total, "games_per_s", rateText(rate), "eta", eta.Round(time.Second))
		}
	}
}

// rateText shows a rate with the precision it deserves: Mafia plays a game in seconds,
// the forty game hundreds a second.
func rateText(r float64) string {
	if r < 10 {
		return fmt.Sprintf("%.2f", r)
	}
	return fmt.Sprintf("%.0f", r)
}
