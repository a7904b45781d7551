package bankheist

import (
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// Python 2.7's str(float) for values the engine meets and for the format's edges; every
// right-hand side was printed by python2.7.
var py2Floats = []struct {
	x    float64
	want string
}{
	{0.54, "0.54"}, {0.488, "0.488"}, {1.1, "1.1"}, {1.0000000000000002, "1.0"}, {0.86969, "0.86969"},
	{-0.026, "-0.026"}, {1e-05, "1e-05"}, {2.0, "2.0"}, {0.0001, "0.0001"}, {0.00012345678901234, "0.000123456789012"},
	{0.5446, "0.5446"}, {0.49312, "0.49312"}, {math.Copysign(0, -1), "-0.0"}, {99999999999.5, "99999999999.5"},
	{1e11, "1e+11"}, {123456789012.0, "1.23456789012e+11"}, {999999999999.4, "9.99999999999e+11"},
	{1e12, "1e+12"}, {1e16, "1e+16"}, {1e100, "1e+100"}, {5e-324, "4.94065645841e-324"},
	{12345678901.5, "12345678901.5"}, {0.1 + 0.2, "0.3"}, {1.1 - 0.05 - 0.05, "1.0"},
	{math.Inf(1), "inf"}, {math.Inf(-1), "-inf"}, {math.NaN(), "nan"},
}

func TestFormatFloat(t *testing.T) {
	for _, c := range py2Floats {
		if got := FormatFloat(c.x); got != c.want {
			t.Errorf("FormatFloat(%v) = %q, want %q", c.x, got, c.want)
		}
	}
}

// TestFormatFloatPython2 compares with a real python2.7 on random values, when one is
// installed.
func TestFormatFloatPython2(t *testing.T) {
	py := os.Getenv("KOTHD_PYTHON2")
	if py == "" {
		py = "/root/.pyenv/versions/2.7.18/bin/python2.7"
	}
	if _, err := os.Stat(py); err != nil {
		t.Skip("no python2.7")
	}
	r := rand.New(rand.NewPCG(1, 2))
	var xs []string
	var vals []float64
	for range 400 {
		x := (r.Float64()*10 - 5) * math.Pow(10, float64(r.IntN(24)-9))
		if r.IntN(4) == 0 {
			x = math.Float64frombits(r.Uint64())
			if math.IsNaN(x) {
				continue
			}
		}
		vals = append(vals, x)
		xs = append(xs, strconv.FormatFloat(x, 'g', -1, 64))
	}
	cmd := exec.Command(py, "-c", "import sys\nfor a in sys.argv[1:]: print str(float(a))")
	cmd.Args = append(cmd.Args, xs...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python2: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(vals) {
		t.Fatalf("python2 printed %d lines for %d values", len(lines), len(vals))
	}
	for i, x := range vals {
		if got := FormatFloat(x); got != lines[i] {
			t.Errorf("FormatFloat(%s) = %q, python2 says %q", xs[i], got, lines[i])
		}
	}
}

func TestParseBet(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"12", 12, true}, {"+7", 7, true}, {"-0", 0, true}, {"0012", 12, true}, {" 5\n", 5, true},
		{"-3", -3, true}, {"99999999999999999999999", maxInt, true}, {"-99999999999999999999999", minInt, true},
		{"12.0", 0, false}, {"1e3", 0, false}, {"0x1f", 0, false}, {"", 0, false}, {"5\nfoo", 0, false},
		{"1_000", 0, false}, {"+", 0, false}, {"٣", 0, false},
	} {
		got, ok := ParseBet(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("ParseBet(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestSaturation(t *testing.T) {
	var s sat
	if s.add(maxInt, 1) != maxInt || s.sub(minInt, 5) != minInt || s.trunc(1e300) != maxInt || s.trunc(-1e300) != minInt {
		t.Fatal("no saturation")
	}
	if s.n != 4 {
		t.Fatalf("counted %d saturations, want 4", s.n)
	}
	if got := s.mulFloorDiv(maxInt, 4, 8); got != maxInt/2 {
		t.Fatalf("mulFloorDiv(max, 4, 8) = %d, want %d", got, int64(maxInt/2))
	}
	if got := s.mulFloorDiv(-7, 3, 2); got != -11 {
		t.Fatalf("floor(-21/2) = %d, want -11", got)
	}
	// Products beyond 64 bits, divided back into range, with Python's floor.
	if got := s.mulFloorDiv(-(1<<62)-1, 3, 1<<20); got != -3<<42-1 {
		t.Fatalf("floor((-2^62 - 1) × 3 / 2^20) = %d, want %d", got, int64(-3<<42-1))
	}
	if got := s.mulFloorDiv(1<<40, 1<<40, -(1 << 30)); got != -(1 << 50) {
		t.Fatalf("2^80 / -2^30 = %d", got)
	}
	if floorDiv(-7, 2) != -4 || floorDiv(7, -2) != -4 || floorDiv(7, 2) != 3 {
		t.Fatal("floorDiv is not Python's //")
	}
}
