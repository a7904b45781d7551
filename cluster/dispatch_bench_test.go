package cluster

import (
	"context"
	"encoding/json"
	"net"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/runner/protocol"
)

// BenchmarkDispatch is the cluster's cost per shard, play excluded: the daemon publishes a
// job, a worker takes it, reports progress once, publishes a result of a nine-bot shard's
// size and acks it, and the daemon receives the result: every JetStream step a shard
// goes through, on the embedded server (file storage), one shard at a time.
func BenchmarkDispatch(b *testing.B) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	srv, url, err := Embed(addr, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Shutdown()
	daemon, _ := Connect(url, "daemon")
	defer daemon.Close()
	worker, _ := Connect(url, "worker")
	defer worker.Close()
	ctx := context.Background()
	djs, _ := jetstream.New(daemon)
	wjs, _ := jetstream.New(worker)
	if _, _, err := setup(ctx, djs, 30*time.Second, 3); err != nil {
		b.Fatal(err)
	}
	cons, err := wjs.Consumer(ctx, jobStream, consumerName)
	if err != nil {
		b.Fatal(err)
	}
	results := make(chan jetstream.Msg, 1)
	rc, _ := djs.OrderedConsumer(ctx, resultStream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{resultSubj + ".bench.>"}})
	cc, _ := rc.Consume(func(m jetstream.Msg) { results <- m })
	defer cc.Stop()
	// A job and a result as big as a forty shard's with nine bots.
	job, _ := json.Marshal(Job{Token: "bench", Challenge: make([]byte, 600), Bots: make([]JobBot, 9), Games: 1_000_000})
	res := &cron.ShardResult{State: make([]byte, 1500), Stats: make([]protocol.StatsState, 9)}
	out, _ := json.Marshal(Outcome{Token: "bench", Result: res})
	b.ResetTimer()
	for i := range b.N {
		if _, err := djs.Publish(ctx, jobSubjectOf("forty", "bench", i), job); err != nil {
			b.Fatal(err)
		}
		m, err := cons.Next(jetstream.FetchMaxWait(5 * time.Second))
		if err != nil {
			b.Fatal(err)
		}
		_ = m.InProgress()
		if _, err := wjs.Publish(ctx, resultSubjectOf("bench", i), out); err != nil {
			b.Fatal(err)
		}
		if err := m.DoubleAck(ctx); err != nil {
			b.Fatal(err)
		}
		<-results
	}
}
