package cluster

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.yaml.in/yaml/v3"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/runner/sandbox"
)

// Worker plays shard jobs, one at a time, until its context ends: it takes a job from the
// work queue, fetches the bots it lacks, plays the shard in its sandbox, publishes the
// result and acks. A worker that dies holding a job stops reporting progress, and after
// ack_wait the job goes to another.
type Worker struct {
	Name    string
	NC      *nats.Conn
	Config  *config.Config // the worker's: data directory, sandbox settings, interpreter
	Sandbox sandbox.Sandbox
	Log     *slog.Logger
	// Python, when set, is the interpreter here, whatever the daemon's is.
	Python string
	// Local, when set, names a directory this process already holds for a bot's hash (the
	// daemon's own worker plays the bots where they are); "": fetch it.
	Local func(hash string) string
	// Played, when set, hears each shard played (tests, metrics).
	Played func(job *Job, took time.Duration)
}

// Run takes jobs until ctx ends. It waits for the daemon to have made the work queue.
func (w *Worker) Run(ctx context.Context) error {
	js, err := jetstream.New(w.NC)
	if err != nil {
		return err
	}
	// The daemon makes the queue, its consumer and the bot store one after another; a
	// worker that starts in between waits for all three rather than failing.
	var cons jetstream.Consumer
	var bots jetstream.ObjectStore
	for {
		cons, err = js.Consumer(ctx, jobStream, consumerName)
		if err == nil {
			bots, err = js.ObjectStore(ctx, botBucket)
		}
		if err == nil {
			break
		}
		if !errors.Is(err, jetstream.ErrStreamNotFound) && !errors.Is(err, jetstream.ErrConsumerNotFound) &&
			!errors.Is(err, jetstream.ErrBucketNotFound) {
			return fmt.Errorf("work queue: %w", err)
		}
		w.Log.Info("no work queue yet: waiting for the daemon to make it", "missing", err)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(2 * time.Second):
		}
	}
	maxDeliver := cons.CachedInfo().Config.MaxDeliver
	w.Log.Info("worker ready", "worker", w.Name)
	for ctx.Err() == nil {
		msg, err := cons.Next(jetstream.FetchMaxWait(2 * time.Second))
		switch {
		case errors.Is(err, jetstream.ErrNoMessages), errors.Is(err, nats.ErrTimeout):
			continue
		case err != nil:
			if ctx.Err() != nil {
				return nil
			}
			w.Log.Warn("take a job", "err", err)
			time.Sleep(time.Second)
			continue
		}
		w.handle(ctx, js, bots, msg, maxDeliver)
	}
	return nil
}

// handle plays one job and says how it went: its result, or its failure (the job is then
// handed out again, up to max_deliver times).
func (w *Worker) handle(ctx context.Context, js jetstream.JetStream, bots jetstream.ObjectStore, msg jetstream.Msg, maxDeliver int) {
	attempt := 1
	if md, err := msg.Metadata(); err == nil {
		attempt = int(md.NumDelivered)
	}
	var job Job
	if err := json.Unmarshal(msg.Data(), &job); err != nil {
		w.Log.Error("unreadable job dropped", "subject", msg.Subject(), "err", err)
		_ = msg.Term()
		return
	}
	log := w.Log.With("token", job.Token, "shard", job.Shard.Index, "attempt", attempt)
	log.Info("shard taken", "games", job.Shard.Count, "first", job.Shard.First)
	_ = w.NC.Publish(fmt.Sprintf("%s.%s.%d", startedSubj, job.Token, job.Shard.Index), []byte(w.Name))
	// Progress three times per ack_wait: a worker that stops reporting is dead to the queue.
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		t := time.NewTicker(max(job.AckWait/3, 100*time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				_ = msg.InProgress()
			}
		}
	}()
	start := time.Now()
	res, err := w.play(ctx, bots, &job)
	if ctx.Err() != nil {
		// Stopping: the job goes back to the queue at once, for another worker.
		_ = msg.Nak()
		return
	}
	out := Outcome{Token: job.Token, Index: job.Shard.Index, Worker: w.Name, Attempt: attempt}
	var crowded *cron.CrowdedError
	switch {
	case errors.As(err, &crowded):
		// The same shard would crowd the bot anywhere: the daemon decides what comes next.
		out.Error, out.Crowded, out.Last = err.Error(), crowded, true
		log.Warn("shard stopped: a bot ran out of memory with many games in flight", "err", err)
	case err != nil:
		out.Error = err.Error()
		out.Last = maxDeliver > 0 && attempt >= maxDeliver
		log.Warn("shard failed", "err", err, "last", out.Last)
	default:
		res.Worker = w.Name
		out.Result = res
		log.Info("shard played", "games", job.Shard.Count, "took", time.Since(start).Round(time.Millisecond))
		if w.Played != nil {
			w.Played(&job, time.Since(start))
		}
	}
	b, _ := json.Marshal(out)
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if _, perr := js.Publish(pctx, resultSubjectOf(job.Token, job.Shard.Index), b); perr != nil {
		// Not acked: after ack_wait the job is played again (by whoever takes it).
		log.Error("publish the shard's result", "err", perr)
		return
	}
	switch {
	case err == nil:
		_ = msg.DoubleAck(pctx)
	case out.Last:
		_ = msg.Term()
	default:
		_ = msg.NakWithDelay(time.Second)
	}
}

// play builds the job's play environment here and plays its shard.
func (w *Worker) play(ctx context.Context, store jetstream.ObjectStore, job *Job) (*cron.ShardResult, error) {
	var ch config.Challenge
	if err := yaml.Unmarshal(job.Challenge, &ch); err != nil {
		return nil, fmt.Errorf("the job's challenge: %w", err)
	}
	if o := &ch.Options; o.Kind == yaml.ScalarNode && o.Tag == "!!null" {
		*o = yaml.Node{} // a challenge without options: written as null, read as none
	}
	cfg := *w.Config
	cfg.Python = cmp.Or(w.Python, job.Python, cfg.Python)
	env, err := cron.WorkerEnv(&cfg, &ch, w.Sandbox, w.Log)
	if err != nil {
		return nil, err
	}
	env.SetRun(job.Games, job.Seed)
	for _, b := range job.Bots {
		bot := engine.Bot{Entrant: engine.Entrant{Name: b.Name, Author: b.Author, Heading: b.Heading, Seed: b.Seed, Baseline: b.Baseline},
			AnswerID: b.AnswerID, Run: b.Run}
		if b.Hash != "" {
			if w.Local != nil {
				bot.Dir = w.Local(b.Hash)
			}
			if bot.Dir == "" {
				if bot.Dir, err = fetch(ctx, store, filepath.Join(cfg.DataDir, "cluster", "bots"), b.Hash); err != nil {
					return nil, err
				}
			}
		}
		env.Bots = append(env.Bots, bot)
	}
	if r := job.Referee; r != nil {
		dir := ""
		if w.Local != nil {
			dir = w.Local(r.Hash)
		}
		if dir == "" {
			if dir, err = fetch(ctx, store, filepath.Join(cfg.DataDir, "cluster", "referees"), r.Hash); err != nil {
				return nil, err
			}
		}
		env.UseReferee(dir, r.Run)
	}
	return cron.PlayShard(ctx, env, job.Shard)
}
