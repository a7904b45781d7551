// Package cluster plays the shards of runs (cron.Shard) on workers over NATS JetStream: a
// work-queue stream of shard jobs, a stream of their results, and an object store of the
// bots' directories keyed by content hash. The daemon embeds a JetStream server or joins
// one (Coordinator); `kothd worker` (Worker) plays shards on any machine. docs/cluster.md
// says how to deploy it and what it costs.
package cluster

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/kothd/kothd/config"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Names of the JetStream resources kothd uses; every daemon and worker of a cluster agrees
// on them.
const (
	jobStream    = "KOTHD_SHARDS"  // work queue: each job is taken by one worker at a time
	resultStream = "KOTHD_RESULTS" // results, read by the daemon that published the jobs
	consumerName = "workers"       // the one pull consumer every worker shares
	botBucket    = "kothd_bots"    // bot directories, by content hash
	jobSubject   = "kothd.shard"   // .<challenge>.<token>.<index>
	resultSubj   = "kothd.result"  // .<token>.<index>
	startedSubj  = "kothd.started" // .<token>.<index>: a worker took a shard (core NATS)
)

// Environment variables with the cluster's credentials: never in the config file, never
// sent to workers.
const (
	EnvToken = config.EnvNATSToken
	EnvCreds = "KOTHD_NATS_CREDS"
	EnvCA    = "KOTHD_NATS_CA" // a CA file for a tls:// server with its own CA
)

// Embed starts a JetStream server in this process, listening on listen (host:port), its
// store under dir. With KOTHD_NATS_TOKEN set, clients must present it.
func Embed(listen, dir string) (*server.Server, string, error) {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return nil, "", fmt.Errorf("cluster.listen %q: %w", listen, err)
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return nil, "", fmt.Errorf("cluster.listen %q: port: %w", listen, err)
	}
	opts := &server.Options{
		ServerName: "kothd", Host: host, Port: p, JetStream: true, StoreDir: filepath.Join(dir, "nats"),
		NoSigs: true, NoLog: true, Authorization: os.Getenv(EnvToken),
	}
	s, err := server.NewServer(opts)
	if err != nil {
		return nil, "", fmt.Errorf("embedded NATS server: %w", err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return nil, "", fmt.Errorf("embedded NATS server on %s did not start in 10s (is the port taken?)", listen)
	}
	return s, s.ClientURL(), nil
}

// Connect connects to the server at url with the credentials of the environment (token or
// creds file; TLS when the URL is tls://, with KOTHD_NATS_CA when the server's CA is its own).
func Connect(url, name string) (*nats.Conn, error) {
	opts := []nats.Option{nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(time.Second),
		// A worker may start before its server: it waits for it, as for a server restarting.
		nats.RetryOnFailedConnect(true)}
	if t := os.Getenv(EnvToken); t != "" {
		opts = append(opts, nats.Token(t))
	}
	if f := os.Getenv(EnvCreds); f != "" {
		opts = append(opts, nats.UserCredentials(f))
	}
	if f := os.Getenv(EnvCA); f != "" {
		opts = append(opts, nats.RootCAs(f))
	}
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, fmt.Errorf("connect to NATS at %s: %w", url, err)
	}
	return nc, nil
}

// setup makes (or updates) the streams, the workers' consumer and the bot store.
func setup(ctx context.Context, js jetstream.JetStream, ackWait time.Duration, maxDeliver int) (jetstream.Stream, jetstream.ObjectStore, error) {
	jobs, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name: jobStream, Subjects: []string{jobSubject + ".>"}, Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("stream %s: %w", jobStream, err)
	}
	if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name: resultStream, Subjects: []string{resultSubj + ".>"}, Storage: jetstream.FileStorage, MaxAge: 7 * 24 * time.Hour,
	}); err != nil {
		return nil, nil, fmt.Errorf("stream %s: %w", resultStream, err)
	}
	bots, err := js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: botBucket, Storage: jetstream.FileStorage})
	if err != nil {
		return nil, nil, fmt.Errorf("object store %s: %w", botBucket, err)
	}
	// The consumer last: a worker that finds it finds everything else too.
	if _, err := jobs.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
		Durable: consumerName, AckPolicy: jetstream.AckExplicitPolicy, AckWait: ackWait, MaxDeliver: maxDeliver,
		MaxAckPending: -1,
	}); err != nil {
		return nil, nil, fmt.Errorf("consumer %s: %w", consumerName, err)
	}
	return jobs, bots, nil
}
