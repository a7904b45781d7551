package bankheist

import (
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
)

// The original controller's integers were Python's unbounded ones. The engine uses int64
// that saturates at ±(2^63 − 1) instead of wrapping (spec §2.2); ordinary play stays far
// below the limit, and every saturation is counted so a run can say it happened.

const (
	maxInt = math.MaxInt64
	minInt = -math.MaxInt64 // symmetric, so negation never overflows
)

// sat performs the engine's saturating arithmetic and counts how often it saturated.
type sat struct{ n int }

func (s *sat) add(a, b int64) int64 {
	if b > 0 && a > maxInt-b {
		s.n++
		return maxInt
	}
	if b < 0 && a < minInt-b {
		s.n++
		return minInt
	}
	return a + b
}

func (s *sat) sub(a, b int64) int64 { return s.add(a, -b) }

// trunc converts a float to an integer the way Python's int() does (toward zero),
// saturating instead of growing. NaN, which ordinary play cannot produce, becomes 0.
func (s *sat) trunc(x float64) int64 {
	switch {
	case math.IsNaN(x):
		s.n++
		return 0
	case x >= 1<<63:
		s.n++
		return maxInt
	case x <= -(1 << 63):
		s.n++
		return minInt
	}
	return int64(x)
}

// floorDiv is Python's a // b (and Python 2's a / b between integers).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// mulFloorDiv is floor(a × b / c) with the product computed exactly, as Python does with
// its unbounded integers; only the quotient saturates.
func (s *sat) mulFloorDiv(a, b, c int64) int64 {
	hi, lo := bits.Mul64(abs64(a), abs64(b))
	if hi == 0 && lo <= maxInt {
		p := int64(lo)
		if (a < 0) != (b < 0) {
			p = -p
		}
		return floorDiv(p, c)
	}
	bp := new(big.Int).Mul(big.NewInt(a), big.NewInt(b))
	bc := big.NewInt(c)
	q, m := new(big.Int).QuoRem(bp, bc, new(big.Int))
	if m.Sign() != 0 && m.Sign() != bc.Sign() {
		q.Sub(q, big.NewInt(1))
	}
	switch {
	case q.IsInt64() && q.Int64() >= minInt:
		return q.Int64()
	case q.Sign() > 0:
		s.n++
		return maxInt
	default:
		s.n++
		return minInt
	}
}

func abs64(a int64) uint64 {
	if a < 0 {
		return uint64(-a)
	}
	return uint64(a)
}

// FormatFloat renders x as Python 2.7's str(float) does, which is how the original
// controller put probabilities and odds on the command line: 12 significant digits,
// trailing zeros dropped, exponent form when the decimal exponent (after rounding) is
// below −4 or at least 11, and ".0" appended to integral values.
//
// The threshold 11 (not 12, as %.12g would have it) is CPython 2.7's: with the ".0" flag
// its 'g' formatting switches to exponent form one digit early, so str(1e11) is "1e+11"
// and str(123456789012.0) is "1.23456789012e+11". Checked against python2.7.
func FormatFloat(x float64) string {
	switch {
	case math.IsNaN(x):
		return "nan"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	e := strconv.FormatFloat(x, 'e', 11, 64) // d.ddddddddddde±XX: 12 significant digits
	i := strings.LastIndexByte(e, 'e')
	exp, _ := strconv.Atoi(e[i+1:])
	if exp < -4 || exp >= 11 {
		return trimZeros(e[:i]) + e[i:] // Go, like Python, writes at least two exponent digits
	}
	s := trimZeros(strconv.FormatFloat(x, 'f', 11-exp, 64))
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// trimZeros drops trailing zeros after a decimal point, and the point if nothing follows.
func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
}

// ParseBet reads a round-1 answer as the original's int() did: an optional sign and ASCII
// decimal digits, nothing else (spec §1.4). Surrounding whitespace is removed first.
// Values beyond 64 bits come back saturated, which the bet clamp then treats like any
// other too-large or negative bet.
func ParseBet(answer string) (int64, bool) {
	s := Strip(answer)
	v, err := strconv.ParseInt(s, 10, 64)
	if err == nil {
		return v, true
	}
	if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
		if strings.HasPrefix(s, "-") {
			return minInt, true
		}
		return maxInt, true
	}
	return 0, false
}

// Strip removes the whitespace Python's str.strip() removes: space, tab, newline,
// carriage return, vertical tab, form feed (and nothing Unicode calls a space).
func Strip(s string) string { return strings.Trim(s, " \t\n\r\v\f") }
