package sandbox

import (
	"context"
	"testing"
	"time"
)

// Ask reaches a process whose starting context is over (a pool closing after its run's
// context ended asks its harnesses for their stats), where a round trip is cut short; a
// process that does not answer is killed at the deadline.
func TestAskAfterTheRunsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p, err := StartLineProc(ctx, Unsandboxed{}, ProcSpec{Dir: t.TempDir(), Argv: []string{"/bin/cat"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	cancel()
	if line, ok := p.Ask([]byte(`{"stats":true}`), 5*time.Second); !ok || string(line) != `{"stats":true}` {
		t.Fatalf("Ask after the context's end: %q, %v", line, ok)
	}

	mute, err := StartLineProc(context.Background(), Unsandboxed{}, ProcSpec{Dir: t.TempDir(), Argv: []string{"/bin/sleep", "600"}})
	if err != nil {
		t.Fatal(err)
	}
	defer mute.Close()
	if line, ok := mute.Ask([]byte("x"), 100*time.Millisecond); ok {
		t.Fatalf("a mute process answered %q", line)
	}
	select {
	case <-mute.Exited:
	case <-time.After(10 * time.Second):
		t.Fatal("a process that did not answer Ask by its deadline still runs")
	}
}
