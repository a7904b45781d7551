// Package pyrand reproduces CPython 3's random.Random bit for bit: the Mersenne Twister
// MT19937 (the reference mt19937ar algorithm), seeded from an integer of any size, a string
// or bytes exactly as random.seed does, and the methods built on it (random, getrandbits,
// randrange, randint, choice, shuffle, sample, uniform) drawing words in CPython's order.
//
// Engines need it where a bot receives a Python Random instance whose stream the engine
// must know (a Go implementation of a built-in bot), or where a seed published by an
// original Python controller is to be reproduced. Everything else should use engine.NewRand.
//
// A Rand is not safe for concurrent use.
package pyrand

import (
	"crypto/sha512"
	"math/big"
)

const (
	n         = 624
	m         = 397
	matrixA   = 0x9908b0df
	upperMask = 0x80000000
	lowerMask = 0x7fffffff
)

// Rand is one generator, the equivalent of a random.Random instance.
type Rand struct {
	mt  [n]uint32
	mti int
}

// New returns a generator seeded like random.Random(seed) for a Python int. The sign is
// ignored, as CPython does; a nil seed is taken as 0.
func New(seed *big.Int) *Rand {
	r := &Rand{}
	r.Seed(seed)
	return r
}

// NewUint64 returns a generator seeded like random.Random(seed).
func NewUint64(seed uint64) *Rand {
	r := &Rand{}
	r.initByArray(wordsOfUint64(seed))
	return r
}

// NewString returns a generator seeded like random.Random(s) for a str (seed version 2:
// the UTF-8 bytes followed by their SHA-512, read as one big-endian integer).
func NewString(s string) *Rand { return NewBytes([]byte(s)) }

// NewBytes returns a generator seeded like random.Random(b) for bytes or bytearray.
func NewBytes(b []byte) *Rand {
	sum := sha512.Sum512(b)
	buf := make([]byte, 0, len(b)+len(sum))
	buf = append(append(buf, b...), sum[:]...)
	return New(new(big.Int).SetBytes(buf))
}

// Seed reseeds the generator like random.seed(seed) for a Python int.
func (r *Rand) Seed(seed *big.Int) {
	if seed == nil {
		seed = new(big.Int)
	}
	r.initByArray(wordsOfInt(seed))
}

// wordsOfInt splits |a| into 32-bit words, least significant first; 0 gives [0], as in
// CPython's random_seed.
func wordsOfInt(a *big.Int) []uint32 {
	var key []uint32
	for _, w := range new(big.Int).Abs(a).Bits() { // little-endian machine words
		x := uint64(w)
		key = append(key, uint32(x))
		if bitsPerWord == 64 {
			key = append(key, uint32(x>>32))
		}
	}
	for len(key) > 1 && key[len(key)-1] == 0 {
		key = key[:len(key)-1]
	}
	if len(key) == 0 {
		key = []uint32{0}
	}
	return key
}

const bitsPerWord = 32 << (^big.Word(0) >> 63)

func wordsOfUint64(x uint64) []uint32 {
	if x>>32 == 0 {
		return []uint32{uint32(x)}
	}
	return []uint32{uint32(x), uint32(x >> 32)}
}

func (r *Rand) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < n; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	r.mti = n
}

func (r *Rand) initByArray(key []uint32) {
	r.initGenrand(19650218)
	i, j := 1, 0
	for k := max(n, len(key)); k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= n {
			r.mt[0] = r.mt[n-1]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k := n - 1; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= n {
			r.mt[0] = r.mt[n-1]
			i = 1
		}
	}
	r.mt[0] = 0x80000000 // MSB is 1, assuring a non-zero initial array
}

// generate refills the state with the next 624 words.
func (r *Rand) generate() {
	mag := func(y uint32) uint32 { return (y & 1) * matrixA }
	kk := 0
	for ; kk < n-m; kk++ {
		y := (r.mt[kk] & upperMask) | (r.mt[kk+1] & lowerMask)
		r.mt[kk] = r.mt[kk+m] ^ (y >> 1) ^ mag(y)
	}
	for ; kk < n-1; kk++ {
		y := (r.mt[kk] & upperMask) | (r.mt[kk+1] & lowerMask)
		r.mt[kk] = r.mt[kk+m-n] ^ (y >> 1) ^ mag(y)
	}
	y := (r.mt[n-1] & upperMask) | (r.mt[0] & lowerMask)
	r.mt[n-1] = r.mt[m-1] ^ (y >> 1) ^ mag(y)
	r.mti = 0
}

// Uint32 returns the next tempered 32-bit word (genrand_uint32).
func (r *Rand) Uint32() uint32 {
	if r.mti >= n {
		r.generate()
	}
	y := r.mt[r.mti]
	r.mti++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}
