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
