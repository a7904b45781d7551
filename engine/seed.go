package engine

import (
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"
)

// Seeds are derived, never handed on. Bots see their own seed (their harness seeds
// Python's random with it) and the draws of the games they sit in, so every derivation is
// one-way and keyed by its parent: HMAC-SHA256 with the parent seed as the key. Nothing a
// bot can observe then tells it the master seed, another game's seed or a die not yet
// thrown, short of trying all 2^64 master seeds. (The first version used SplitMix64, which
// is invertible: a bot recovered the master seed from its own seed and knew every die.)
// Publishing the master seed after the run still lets anyone replay every game.

// derive is the one derivation: HMAC-SHA256 keyed by the parent seed over a domain label
// and the child's name, cut to 64 bits. It is written out (RFC 2104 over a key shorter
// than the block) so that short names cost no allocation: engines derive streams per
// decision (Bank Heist's example bots). seed_test.go checks it against crypto/hmac.
func derive(parent uint64, domain string, name []byte) uint64 {
	const block = 64
	var pad [block]byte
	binary.LittleEndian.PutUint64(pad[:], parent)
	var buf [block + 96]byte
	msg := buf[:0]
	for _, b := range pad {
		msg = append(msg, b^0x36)
	}
	msg = append(msg, domain...)
	msg = append(msg, 0)
	msg = append(msg, name...)
	inner := sha256.Sum256(msg)
	msg = buf[:0]
	for _, b := range pad {
		msg = append(msg, b^0x5c)
	}
	msg = append(msg, inner[:]...)
	outer := sha256.Sum256(msg)
	return binary.LittleEndian.Uint64(outer[:])
}

// GameSeed derives a game's seed from the run's master seed and the game's index, so any
// game can be replayed alone and a resumed run plays the games it would have played.
func GameSeed(master uint64, game int) uint64 {
	return derive(master, "kothd game", binary.LittleEndian.AppendUint64(nil, uint64(game)))
}

// SubSeed derives a named stream from a seed: a bot's own generator, a tournament phase.
// Its result may be shown to a bot: it reveals neither seed nor any sibling stream.
func SubSeed(seed uint64, name string) uint64 {
	return derive(seed, "kothd sub", []byte(name))
}

// NewRand returns the engine's generator for a seed: ChaCha8, a cryptographic generator,
// so the draws a bot has seen do not tell it the draws to come. Engines that need no
// compatibility with an original controller's generator use it for every draw.
func NewRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewChaCha8(streamKey(seed)))
}

// SeedRand resets src to the source of NewRand(seed): the draws of rand.New(src) are then
// NewRand(seed)'s. An engine that keeps the generator inside the state of a game it plays
// many of at once (forty's slots) draws from memory the game has just touched, not from a
// generator allocated elsewhere.
func SeedRand(src *rand.ChaCha8, seed uint64) {
	src.Seed(streamKey(seed))
}

// streamKey is the ChaCha8 key of a stream's seed.
func streamKey(seed uint64) [32]byte {
	var buf [len("kothd stream\x00") + 8]byte
	return sha256.Sum256(binary.LittleEndian.AppendUint64(append(buf[:0], "kothd stream\x00"...), seed))
}
