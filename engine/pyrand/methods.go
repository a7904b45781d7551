package pyrand

import (
	"errors"
	"math"
	"math/big"
	"math/bits"
)

// The errors CPython raises, for callers that reproduce a Python bot's failure.
var (
	ErrEmptyRange = errors.New("empty range for randrange()")          // ValueError
	ErrEmptySeq   = errors.New("cannot choose from an empty sequence") // IndexError
	ErrSampleSize = errors.New("sample larger than population or is negative")
)

// Random returns the next float in [0, 1), like random.random(): 53 bits from two words.
func (r *Rand) Random() float64 {
	a := r.Uint32() >> 5
	b := r.Uint32() >> 6
	return (float64(a)*67108864.0 + float64(b)) * (1.0 / 9007199254740992.0)
}

// Uniform returns a + (b-a) * random(), like random.uniform(a, b).
func (r *Rand) Uniform(a, b float64) float64 {
	return a + (b-a)*r.Random()
}

// Bits returns getrandbits(k) for 0 <= k <= 64 without allocating. k <= 0 gives 0 and draws
// nothing (CPython 3.9+ accepts getrandbits(0)); k > 64 is taken as 64.
func (r *Rand) Bits(k int) uint64 {
	switch {
	case k <= 0:
		return 0
	case k <= 32:
		return uint64(r.Uint32() >> (32 - k))
	case k > 64:
		k = 64
	}
	lo := uint64(r.Uint32())
	hi := uint64(r.Uint32() >> (64 - k))
	return lo | hi<<32
}

// GetRandBits returns getrandbits(k) for any k >= 0: ceil(k/32) words, the first the least
// significant, the last shifted right to keep only its top k mod 32 bits.
func (r *Rand) GetRandBits(k int) *big.Int {
	if k <= 64 {
		return new(big.Int).SetUint64(r.Bits(k))
	}
	words := (k-1)/32 + 1
	buf := make([]byte, 4*words) // big-endian for SetBytes
	for i := 0; i < words; i, k = i+1, k-32 {
		w := r.Uint32()
		if k < 32 {
			w >>= 32 - k
		}
		off := len(buf) - 4*(i+1)
		buf[off], buf[off+1], buf[off+2], buf[off+3] = byte(w>>24), byte(w>>16), byte(w>>8), byte(w)
	}
	return new(big.Int).SetBytes(buf)
}

// Below returns randbelow(n), a uniform int in [0, n), by rejection on getrandbits of n's
// bit length, as CPython's _randbelow_with_getrandbits. n < 1 returns 0 and draws nothing;
// callers that must reproduce Python's error use RandRange.
func (r *Rand) Below(n int) int {
	if n < 1 {
		return 0
	}
	k := bits.Len64(uint64(n))
	v := r.Bits(k)
	for v >= uint64(n) {
		v = r.Bits(k)
	}
	return int(v)
}

// RandRange returns randrange(stop): Below(stop), or ErrEmptyRange when stop <= 0.
func (r *Rand) RandRange(stop int) (int, error) {
	if stop <= 0 {
		return 0, ErrEmptyRange
	}
	return r.Below(stop), nil
}

// RandRangeStep returns randrange(start, stop, step) for step != 0.
func (r *Rand) RandRangeStep(start, stop, step int) (int, error) {
	width := stop - start
	if step == 1 {
		if width <= 0 {
			return 0, ErrEmptyRange
		}
		return start + r.Below(width), nil
	}
	if step == 0 {
		return 0, errors.New("zero step for randrange()")
	}
	var cnt int
	if step > 0 {
		cnt = (width + step - 1) / step
	} else {
		cnt = (width + step + 1) / step
	}
	if cnt <= 0 {
		return 0, ErrEmptyRange
	}
	return start + step*r.Below(cnt), nil
}

// RandInt returns randint(a, b), a uniform int in [a, b]: a + randbelow(b - a + 1).
func (r *Rand) RandInt(a, b int) (int, error) {
	return r.RandRangeStep(a, b+1, 1)
}

// Choice returns random.choice(seq): seq[randbelow(len(seq))].
func Choice[T any](r *Rand, seq []T) (T, error) {
	if len(seq) == 0 {
		var zero T
		return zero, ErrEmptySeq
	}
	return seq[r.Below(len(seq))], nil
}

// Shuffle permutes n elements like random.shuffle: for i from n-1 down to 1, swap i with
// randbelow(i+1).
func (r *Rand) Shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		swap(i, r.Below(i+1))
	}
}

// Sample returns the positions random.sample(population, k) picks from a population of n
// elements, in selection order, using CPython's two strategies (a shrinking pool for small
// populations, rejection against a set of picks otherwise).
func (r *Rand) Sample(n, k int) ([]int, error) {
	if k < 0 || k > n {
		return nil, ErrSampleSize
	}
	result := make([]int, k)
	setsize := 21 // size of a small set minus the size of an empty list
	if k > 5 {
		setsize += int(math.Pow(4, math.Ceil(math.Log(float64(k*3))/math.Log(4))))
	}
	if n <= setsize {
		pool := make([]int, n)
		for i := range pool {
			pool[i] = i
		}
		for i := 0; i < k; i++ {
			j := r.Below(n - i)
			result[i] = pool[j]
			pool[j] = pool[n-i-1] // move non-selected item into the vacancy
		}
		return result, nil
	}
	selected := make(map[int]bool, k)
	for i := 0; i < k; i++ {
		j := r.Below(n)
		for selected[j] {
			j = r.Below(n)
		}
		selected[j] = true
		result[i] = j
	}
	return result, nil
}
