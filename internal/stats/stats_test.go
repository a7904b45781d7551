package stats

import (
	"math"
	"testing"
)

func TestWilson(t *testing.T) {
	// 1200 of 4000: the Wilson interval is 0.2859–0.3144 (computed by hand from the formula).
	lo, hi := Wilson(1200, 4000)
	if math.Abs(lo-0.28594) > 1e-4 || math.Abs(hi-0.31436) > 1e-4 {
		t.Errorf("Wilson(1200, 4000) = %.5f–%.5f", lo, hi)
	}
	if lo, hi := Wilson(0, 100); lo != 0 || hi < 0.03 || hi > 0.04 {
		t.Errorf("Wilson(0, 100) = %f–%f, want 0–0.037", lo, hi)
	}
}
