package cluster

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// lockedBuffer is a log sink the worker's goroutine writes while the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A worker that starts while the daemon is still making the cluster's resources (here:
// the work queue and its consumer exist, the bot store not yet) waits for them rather
// than exiting: CI once saw `kothd worker` die with "bot store: nats: bucket not found"
// when it connected between the two.
func TestWorkerWaitsForTheBotStore(t *testing.T) {
	s, url, err := Embed("127.0.0.1:0", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	nc, err := Connect(url, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	jobs, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: jobStream, Subjects: []string{jobSubject + ".>"}, Retention: jetstream.WorkQueuePolicy})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := jobs.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{Durable: consumerName, AckPolicy: jetstream.AckExplicitPolicy}); err != nil {
		t.Fatal(err)
	}

	var logs lockedBuffer
	w := &Worker{Name: "w", NC: nc, Log: slog.New(slog.NewTextHandler(&logs, nil))}
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(wctx) }()
	waitLog := func(s string) {
		t.Helper()
		for !strings.Contains(logs.String(), s) {
			select {
			case err := <-done:
				t.Fatalf("the worker stopped (%v) before logging %q:\n%s", err, s, logs.String())
			case <-ctx.Done():
				t.Fatalf("no %q:\n%s", s, logs.String())
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	waitLog("no work queue yet")
	if _, err := js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: botBucket}); err != nil {
		t.Fatal(err)
	}
	waitLog("worker ready")
	stop()
	if err := <-done; err != nil {
		t.Errorf("the worker ended with %v", err)
	}
}
