package cron

import (
	"context"
	"testing"
	"time"
)

// The daemon runs a challenge's cycle on its schedule and stops cleanly when told to.
func TestServe(t *testing.T) {
	cy := testCycle(t, t.TempDir())
	ch, _ := cy.Config.Challenge("forty")
	ch.Games = 20
	ch.Schedule = "* * * * * *" // every second
	cy.Config.Challenges = cy.Config.Challenges[2:3]
	if cy.Config.Challenges[0].Name != "forty" {
		t.Fatalf("config order changed: %s", cy.Config.Challenges[0].Name)
	}
	cy.Config.Challenges[0] = *ch
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, cy) }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		run, err := cy.Store.LastRun(context.Background(), "forty")
		if err != nil {
			t.Fatal(err)
		}
		if run != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no run recorded by the scheduled cycle within 60s")
		}
		time.Sleep(200 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("Serve did not stop after cancel")
	}
}
