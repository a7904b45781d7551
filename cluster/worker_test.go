package cluster

import (
	"bufio"
	"context"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

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

	// The worker logs into a pipe the test reads line by line.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	lines := bufio.NewScanner(r)
	worker := &Worker{Name: "w", NC: nc, Log: slog.New(slog.NewTextHandler(w, nil))}
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- worker.Run(wctx) }()
	waitLog := func(s string) {
		t.Helper()
		if err := r.SetReadDeadline(time.Now().Add(30 * time.Second)); err != nil {
			t.Fatal(err)
		}
		var seen []string
		for lines.Scan() {
			if strings.Contains(lines.Text(), s) {
				return
			}
			seen = append(seen, lines.Text())
		}
		select {
		case err := <-done:
			t.Fatalf("the worker stopped (%v) before logging %q:\n%s", err, s, strings.Join(seen, "\n"))
		default:
			t.Fatalf("no %q (%v):\n%s", s, lines.Err(), strings.Join(seen, "\n"))
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
