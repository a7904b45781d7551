package publisher

import (
	"fmt"
	"math"
	"testing"
)

// Ticks are round (1, 2 or 5 times a power of ten) and cover the data: the old chart's
// were the data's range split in four (16.6 … 24.9).
func TestNiceTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   string
	}{
		{16.6, 24.9, "[16 18 20 22 24 26]"},
		{0, 1, "[0 0.2 0.4 0.6 0.8 1]"},
		{-0.51, 0.38, "[-0.6 -0.4 -0.2 0 0.2 0.4]"},
		{436.5, 500.4, "[420 440 460 480 500 520]"},
		{5, 5, "[4.4 4.6 4.8 5 5.2 5.4 5.6]"},
	} {
		ticks, step := niceTicks(c.lo, c.hi, 6)
		if got := fmt.Sprint(ticks); got != c.want {
			t.Errorf("ticks of [%v, %v]: %s, want %s", c.lo, c.hi, got, c.want)
		}
		m := step / math.Pow(10, math.Floor(math.Log10(step)+1e-9))
		if math.Abs(m-1) > 1e-9 && math.Abs(m-2) > 1e-9 && math.Abs(m-5) > 1e-9 {
			t.Errorf("step %v is not 1, 2 or 5 times a power of ten", step)
		}
	}
}

// Tick labels are short: a step's decimals, and thousands, millions or billions above ten
// thousand (a Bank Heist score's nine digits ran into each other).
func TestTickLabels(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   string
	}{
		{0, 8e8, "[0 200M 400M 600M 800M]"},
		{16.6, 24.9, "[16 18 20 22 24 26]"},
		{0.1, 0.9, "[0.0 0.2 0.4 0.6 0.8 1.0]"},
		{0, 25000, "[0 5k 10k 15k 20k 25k]"},
		{1.2e9, 1.5e9, "[1.2B 1.3B 1.4B 1.5B]"},
	} {
		ticks, step := niceTicks(c.lo, c.hi, 6)
		if got := fmt.Sprint(tickLabels(ticks, step)); got != c.want {
			t.Errorf("labels of [%v, %v]: %s, want %s", c.lo, c.hi, got, c.want)
		}
	}
	// On a short axis, fewer ticks: nine-digit labels 50 px apart would touch.
	if ticks, labels := axisTicks(0, 8e8, 5, 100, false); len(ticks) > 3 {
		t.Errorf("%d ticks (%v) on 100 px", len(ticks), labels)
	}
}
