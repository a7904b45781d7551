package cron

import (
	"fmt"
	"math"
	"testing"
)

// The order is looked at on the first boundary at or after each multiple of the batch,
// from min_games on, whatever batch the boundaries come in (checkpoints may be smaller).
func TestAdaptiveLooksAtBatchMultiples(t *testing.T) {
	a := &adaptive{batch: 2500, minGames: 4000}
	var looks []int
	for done := 1000; done <= 12000; done += 1000 {
		if a.due(done, 1000) {
			looks = append(looks, done)
		}
	}
	if fmt.Sprint(looks) != "[5000 8000 10000]" { // 2500 is before min_games; 7500 → 8000
		t.Errorf("looks at %v, want [5000 8000 10000]", looks)
	}
	looks = nil
	for done := 2500; done <= 10000; done += 2500 {
		if a.due(done, 2500) {
			looks = append(looks, done)
		}
	}
	if fmt.Sprint(looks) != "[5000 7500 10000]" {
		t.Errorf("boundaries at the batch: looks at %v", looks)
	}
}

// Each look is tested at a share of the run's error allowance (the looks of a whole-budget
// run: multiples of the batch from min_games to the budget), so looking often cannot buy a
// "settled" the run's confidence does not support.
func TestAdaptiveLooksSpendTheError(t *testing.T) {
	a := &adaptive{confidence: 0.95, batch: 100, minGames: 300, budget: 2000}
	if n := a.looks(); n != 18 { // 300, 400, …, 2000
		t.Fatalf("looks = %d, want 18", n)
	}
	if got, want := a.perLook(), 1-0.05/18; math.Abs(got-want) > 1e-12 {
		t.Fatalf("per-look confidence %v, want %v", got, want)
	}
	one := &adaptive{confidence: 0.9, batch: 1000, minGames: 1000, budget: 1000}
	if got := one.perLook(); math.Abs(got-0.9) > 1e-12 {
		t.Fatalf("a single look is tested at %v, want the run's 0.9", got)
	}
}
