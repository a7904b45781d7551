package engine

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"hash/fnv"
	"math/rand/v2"
	"testing"
)

// The attack of issue 10, item 1, against the first derivation: a bot's seed was
// splitmix(master ^ fnv64a(name)); splitmix is a bijection with a known inverse, so a bot
// that knows its seed and its own name knew the master seed and with it every die.

func oldSplitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

func oldSubSeed(seed uint64, name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return oldSplitmix(seed ^ h.Sum64())
}

// invertSplitmix undoes oldSplitmix: xorshifts are undone by repeating them, the odd
// multipliers by their inverses modulo 2^64.
func invertSplitmix(y uint64) uint64 {
	unshift := func(y uint64, s uint) uint64 {
		x := y
		for i := uint(0); i < 64/s+1; i++ {
			x = y ^ (x >> s)
		}
		return x
	}
	inv := func(a uint64) uint64 { // Newton's iteration for a^-1 mod 2^64
		x := a
		for range 6 {
			x *= 2 - a*x
		}
		return x
	}
	x := unshift(y, 31)
	x *= inv(0x94d049bb133111eb)
	x = unshift(x, 27)
	x *= inv(0xbf58476d1ce4e5b9)
	x = unshift(x, 30)
	return x - 0x9e3779b97f4a7c15
}

// RecoverMasterOld is the bot's attack: from the seed it was given and its name, the
// master seed under the old derivation.
func RecoverMasterOld(botSeed uint64, name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return invertSplitmix(botSeed) ^ h.Sum64()
}

func TestOldDerivationWasInvertible(t *testing.T) {
	// The attack is real: against the old derivation it recovers the master every time.
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		m := r.Uint64()
		if got := RecoverMasterOld(oldSubSeed(m, "GoTo20Bot"), "GoTo20Bot"); got != m {
			t.Fatalf("inversion of the old derivation: got %d, want %d", got, m)
		}
	}
}

func TestBotSeedIsKeyedOneWay(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 1000 {
		m := r.Uint64()
		name := "GoTo20Bot"
		s := SubSeed(m, name)
		// What a bot receives is the HMAC-SHA256 of its name keyed by the master seed.
		var key [8]byte
		binary.LittleEndian.PutUint64(key[:], m)
		mac := hmac.New(sha256.New, key[:])
		mac.Write([]byte("kothd sub\x00" + name))
		if want := binary.LittleEndian.Uint64(mac.Sum(nil)); s != want {
			t.Fatalf("SubSeed(%d, %q) = %d, want the HMAC %d", m, name, s, want)
		}
		// And the old attack gets nothing from it.
		if got := RecoverMasterOld(s, name); got == m {
			t.Fatalf("the old inversion recovered master %d from bot seed %d", m, s)
		}
		if s == m || s == GameSeed(m, 0) || s == oldSubSeed(m, name) {
			t.Fatalf("bot seed %d equals another stream's seed", s)
		}
	}
}

// The games' dice come from ChaCha8 keyed by a hash of the game seed, not from PCG (whose
// state a run of outputs gives away).
func TestStreamIsChaCha8(t *testing.T) {
	seed := GameSeed(99, 7)
	key := sha256.Sum256(binary.LittleEndian.AppendUint64([]byte("kothd stream\x00"), seed))
	want := rand.New(rand.NewChaCha8(key))
	got := NewRand(seed)
	for i := range 100 {
		if a, b := got.Uint64(), want.Uint64(); a != b {
			t.Fatalf("draw %d: %d, want ChaCha8's %d", i, a, b)
		}
	}
}

// SeedRand makes a source that is reused from game to game (forty's slots) draw what
// NewRand draws for the same seed, whatever it drew before.
func TestSeedRandIsNewRand(t *testing.T) {
	var src rand.ChaCha8
	r := rand.New(&src)
	for _, seed := range []uint64{GameSeed(99, 7), GameSeed(99, 8), 0, GameSeed(99, 7)} {
		SeedRand(&src, seed)
		want := NewRand(seed)
		for i := range 100 {
			if a, b := r.Uint64(), want.Uint64(); a != b {
				t.Fatalf("seed %d, draw %d: %d, want NewRand's %d", seed, i, a, b)
			}
		}
		r.IntN(6) // a game that stopped mid-block: the next seed resets it all the same
	}
}

// A bot seeing the draws of one game learns nothing of the next: streams of neighbouring
// games and seeds agree on a die no more often than chance.
func TestStreamsIndependent(t *testing.T) {
	same, n := 0, 0
	for g := range 200 {
		a, b := NewRand(GameSeed(5, g)), NewRand(GameSeed(5, g+1))
		for range 50 {
			if a.IntN(6) == b.IntN(6) {
				same++
			}
			n++
		}
	}
	if f := float64(same) / float64(n); f < 0.14 || f > 0.19 {
		t.Errorf("neighbouring games agree on %.3f of dice, chance is 0.167", f)
	}
}

// The cost of one-way seeds: one game's seed and generator and 100 dice, against the
// first derivation (SplitMix64 and PCG). Forty draws ~100 dice a game; Bank Heist
// derives a generator per example bot's decision.
func BenchmarkGameStream(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		r := NewRand(GameSeed(42, i))
		for range 100 {
			r.IntN(6)
		}
	}
}

func BenchmarkGameStreamOld(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		s := oldSplitmix(42 ^ oldSplitmix(uint64(i)+0x9e3779b97f4a7c15))
		r := rand.New(rand.NewPCG(s, oldSplitmix(s)))
		for range 100 {
			r.IntN(6)
		}
	}
}
