package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.yaml.in/yaml/v3"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/runner/sandbox"
)

// Coordinator is the daemon's side of a cluster (cron.Distributor): it publishes a run's
// shards as jobs, hands their results to the run's fold as they come, and plays shards
// itself unless cluster.local_worker is false.
type Coordinator struct {
	cfg    *config.Cluster
	python string
	log    *slog.Logger
	srv    *server.Server // the embedded server; nil when the daemon joined one
	nc     *nats.Conn
	js     jetstream.JetStream
	jobs   jetstream.Stream
	bots   jetstream.ObjectStore
	local  sync.Map // content hash → the daemon's directory of that bot
	stop   context.CancelFunc
	done   chan struct{}
	// URL is the server's client URL (the embedded one's when listen is set).
	URL string
}

// Start embeds or joins the cluster cfg.Cluster describes, makes its streams and starts
// the daemon's own worker (sandbox sb) unless local_worker is false.
func Start(ctx context.Context, cfg *config.Config, sb sandbox.Sandbox, log *slog.Logger) (_ *Coordinator, err error) {
	cl := cfg.Cluster
	c := &Coordinator{cfg: cl, python: cfg.Python, log: log.With("part", "cluster"), done: make(chan struct{}), URL: cl.URL}
	defer func() {
		if err != nil {
			c.Close()
		}
	}()
	if cl.Listen != "" {
		if c.srv, c.URL, err = Embed(cl.Listen, cfg.DataDir); err != nil {
			return nil, err
		}
	}
	if c.nc, err = Connect(c.URL, "kothd daemon"); err != nil {
		return nil, err
	}
	if c.js, err = jetstream.New(c.nc); err != nil {
		return nil, err
	}
	if c.jobs, c.bots, err = setup(ctx, c.js, cl.Wait(), cl.Deliveries()); err != nil {
		return nil, err
	}
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	c.stop = cancel
	if !cl.Local() {
		close(c.done)
		return c, nil
	}
	host, _ := os.Hostname()
	w := &Worker{Name: fmt.Sprintf("%s-%d-daemon", host, os.Getpid()), NC: c.nc, Config: cfg, Sandbox: sb, Log: c.log,
		Local: func(hash string) string {
			d, _ := c.local.Load(hash)
			s, _ := d.(string)
			return s
		}}
	go func() {
		defer close(c.done)
		if err := w.Run(wctx); err != nil {
			c.log.Error("the daemon's own worker stopped", "err", err)
		}
	}()
	return c, nil
}

// Close stops the daemon's worker (its shard goes back to the queue), the connection and
// the embedded server.
func (c *Coordinator) Close() {
	if c.stop != nil {
		c.stop()
		<-c.done
	}
	if c.nc != nil {
		c.nc.Close()
	}
	if c.srv != nil {
		c.srv.Shutdown()
		c.srv.WaitForShutdown()
	}
}

// ShardGames is cluster.shard_games, else the engine's default, else the whole run.
func (c *Coordinator) ShardGames(g *engine.Game, games int) int {
	switch {
	case c.cfg.ShardGames > 0:
		return c.cfg.ShardGames
	case g.Shards != nil && g.Shards.Games > 0:
		return g.Shards.Games
	}
	return games
}

// jobChallenge is the challenge's config block as a job carries it, with the run's games
// in flight as resolved (a resumed run's recorded value, or the daemon's default): a
// worker's kothd may have another default, and the table of bots that keep state across
// games depends on it.
func jobChallenge(env *cron.PlayEnv) ([]byte, error) {
	ch := *env.Challenge
	ch.Concurrency = env.Run.Concurrency()
	b, err := yaml.Marshal(&ch)
	if err != nil {
		return nil, fmt.Errorf("cluster: the challenge's settings: %w", err)
	}
	return b, nil
}

// subjectUnsafe is what a challenge name loses to become one subject token.
var subjectUnsafe = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// Play publishes run's shards and folds their results until every shard is in, a shard
// failed on every attempt, or ctx ends (the run's jobs are then withdrawn).
func (c *Coordinator) Play(ctx context.Context, run *cron.ShardedRun, fold func(int, *cron.ShardResult) error) error {
	env := run.Env
	token := newToken()
	chName := subjectUnsafe.ReplaceAllString(env.Challenge.Name, "_")
	chYAML, err := jobChallenge(env)
	if err != nil {
		return err
	}
	jb, err := c.jobBots(ctx, env.Bots)
	if err != nil {
		return err
	}
	jr, err := c.jobReferee(ctx, env)
	if err != nil {
		return err
	}
	// Jobs of this challenge's earlier attempts (a daemon killed mid-run) are stale: the
	// run resumes from its checkpoint under a new token.
	if err := c.jobs.Purge(ctx, jetstream.WithPurgeSubject(jobSubject+"."+chName+".>")); err != nil {
		return fmt.Errorf("cluster: withdraw stale jobs: %w", err)
	}
	defer func() {
		_ = c.jobs.Purge(context.WithoutCancel(ctx), jetstream.WithPurgeSubject(jobSubject+"."+chName+"."+token+".>"))
	}()

	outcomes := make(chan jetstream.Msg, 64)
	rc, err := c.js.OrderedConsumer(ctx, resultStream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{resultSubj + "." + token + ".>"}})
	if err != nil {
		return fmt.Errorf("cluster: results: %w", err)
	}
	cc, err := rc.Consume(func(m jetstream.Msg) { outcomes <- m })
	if err != nil {
		return fmt.Errorf("cluster: results: %w", err)
	}
	defer cc.Stop()
	started := make(chan *nats.Msg, 64)
	sub, err := c.nc.ChanSubscribe(startedSubj+"."+token+".*", started)
	if err != nil {
		return err
	}
	defer sub.Unsubscribe()
	exhausted := make(chan *nats.Msg, 16)
	adv, err := c.nc.ChanSubscribe("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES."+jobStream+"."+consumerName, exhausted)
	if err != nil {
		return err
	}
	defer adv.Unsubscribe()

	st := shardTrack{all: map[int]cron.Shard{}, holders: map[int]string{}, done: map[int]bool{}, bySeq: map[uint64]int{}}
	for _, s := range run.Shards {
		st.all[s.Index] = s
	}
	published := time.Now()
	publish := func(s cron.Shard) error {
		b, err := json.Marshal(Job{Token: token, Shard: s, Challenge: chYAML, Python: c.python, Seed: env.Run.Seed(), Games: env.RunGames(),
			Bots: jb, Referee: jr, AckWait: c.cfg.Wait()})
		if err != nil {
			return err
		}
		ack, err := c.js.Publish(ctx, jobSubjectOf(chName, token, s.Index), b)
		if err != nil {
			return fmt.Errorf("cluster: publish shard %d: %w", s.Index, err)
		}
		st.bySeq[ack.Sequence] = s.Index
		return nil
	}
	// A Chained game's shards go out one at a time, each with the state the shards before
	// it merged to (run.State); the others all at once.
	// (A game without Sharding has no chain: its shards fail on the worker, with the reason.)
	chained := env.Game.Shards != nil && env.Game.Shards.Chained && run.State != nil
	next := 0 // run.Shards[next] is the next to publish
	publishNext := func() error {
		for ; next < len(run.Shards); next++ {
			s := run.Shards[next]
			if chained {
				if next > 0 && !st.done[run.Shards[next-1].Index] {
					return nil
				}
				s.From = run.State()
			}
			if err := publish(s); err != nil {
				return err
			}
		}
		return nil
	}
	if err := publishNext(); err != nil {
		return err
	}
	c.log.Info("shards published", "challenge", env.Challenge.Name, "run", run.RunID, "shards", len(run.Shards), "chained", chained, "token", token, "took", time.Since(published))
	report := func() {
		if run.Status != nil {
			run.Status(st.status())
		}
	}
	report()
	for len(st.done) < len(st.all) {
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case m := <-started:
			i, _ := strconv.Atoi(m.Subject[strings.LastIndexByte(m.Subject, '.')+1:])
			if _, ok := st.all[i]; ok && !st.done[i] {
				st.holders[i] = string(m.Data)
				report()
			}
		case m := <-exhausted:
			var a struct {
				Seq        uint64 `json:"stream_seq"`
				Deliveries int    `json:"deliveries"`
			}
			if json.Unmarshal(m.Data, &a) != nil {
				continue
			}
			if i, ok := st.bySeq[a.Seq]; ok && !st.done[i] {
				s := st.all[i]
				return fmt.Errorf("cluster: shard %d (games %d..%d) was handed out %d times and no worker finished it (each died or stayed silent past ack_wait %s; see the workers' logs)",
					i, s.First, s.First+s.Count-1, a.Deliveries, c.cfg.Wait())
			}
		case m := <-outcomes:
			var o Outcome
			if err := json.Unmarshal(m.Data(), &o); err != nil || o.Token != token {
				continue
			}
			s, ok := st.all[o.Index]
			if !ok || st.done[o.Index] {
				continue // a late duplicate: the shard is folded already
			}
			if o.Crowded != nil {
				return o.Crowded // the run is played again with fewer games in flight
			}
			if o.Result == nil {
				c.log.Warn("a worker failed a shard", "challenge", env.Challenge.Name, "shard", o.Index, "worker", o.Worker, "attempt", o.Attempt, "err", o.Error)
				if o.Last {
					return fmt.Errorf("cluster: shard %d (games %d..%d) failed on every attempt (%d), last on %s: %s", o.Index, s.First, s.First+s.Count-1, o.Attempt, o.Worker, o.Error)
				}
				delete(st.holders, o.Index)
				report()
				continue
			}
			// Counted done before the fold, so the progress line the fold prints counts it.
			st.done[o.Index] = true
			delete(st.holders, o.Index)
			report()
			if err := fold(o.Index, o.Result); err != nil {
				return err
			}
			if err := publishNext(); err != nil {
				return err
			}
		}
	}
	return nil
}

// jobBots are the run's bots as jobs name them, their directories put in the object store.
func (c *Coordinator) jobBots(ctx context.Context, bots []engine.Bot) ([]JobBot, error) {
	hashes := map[string]string{} // dir → hash: an answer's classes share its directory
	out := make([]JobBot, len(bots))
	for i, b := range bots {
		out[i] = JobBot{Name: b.Name, Author: b.Author, Heading: b.Heading, Seed: b.Seed, Baseline: b.Baseline, AnswerID: b.AnswerID, Run: b.Run}
		if b.Dir == "" {
			continue
		}
		h, ok := hashes[b.Dir]
		if !ok {
			archive, hash, err := packDir(b.Dir)
			if err != nil {
				return nil, fmt.Errorf("cluster: bot %s: %w", b.Name, err)
			}
			if err := upload(ctx, c.bots, archive, hash); err != nil {
				return nil, fmt.Errorf("cluster: bot %s: %w", b.Name, err)
			}
			c.local.Store(hash, b.Dir)
			h, hashes[b.Dir] = hash, hash
		}
		out[i].Hash = h
	}
	return out, nil
}

// jobReferee is the run's referee as jobs carry it, its directory put in the object store
// like a bot's; nil for a game whose rules are Go.
func (c *Coordinator) jobReferee(ctx context.Context, env *cron.PlayEnv) (*JobReferee, error) {
	dir, run, ok, err := env.Referee()
	if !ok || err != nil {
		return nil, err
	}
	archive, hash, err := packDir(dir)
	if err != nil {
		return nil, fmt.Errorf("cluster: the referee: %w", err)
	}
	if err := upload(ctx, c.bots, archive, hash); err != nil {
		return nil, fmt.Errorf("cluster: the referee: %w", err)
	}
	c.local.Store(hash, dir)
	return &JobReferee{Hash: hash, Run: run}, nil
}

// shardTrack is what the daemon knows of a run's shards.
type shardTrack struct {
	all     map[int]cron.Shard
	holders map[int]string // in flight: worker
	done    map[int]bool
	bySeq   map[uint64]int // job's stream sequence → shard
}

func (t *shardTrack) status() cron.ShardStatus {
	h := maps.Clone(t.holders)
	return cron.ShardStatus{Queued: len(t.all) - len(t.done) - len(h), InFlight: len(h), Done: len(t.done), Holders: h}
}

func newToken() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
