package engine

import (
	"hash/fnv"
	"math/rand/v2"
)

// GameSeed derives a game's seed from the run's master seed and the game's index, so any
// game can be replayed alone and a resumed run plays the games it would have played.
// SplitMix64 over the pair gives well-spread, independent seeds.
func GameSeed(master uint64, game int) uint64 {
	return splitmix(master ^ splitmix(uint64(game)+0x9e3779b97f4a7c15))
}

// SubSeed derives a named stream from a seed: a bot's own generator, a tournament phase.
func SubSeed(seed uint64, name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return splitmix(seed ^ h.Sum64())
}

// NewRand returns the engine's generator for a seed. Engines that need no compatibility
// with an original controller's generator use it for every draw.
func NewRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, splitmix(seed)))
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
