package engine

import "context"

// Sharding is how a Batched game's run is cut into shards of consecutive games played
// apart, by the workers of a cluster (package cluster) or one after the other on one
// machine, and folded back in game order. A shard's state is what a checkpoint holds for
// its games alone: merging the shards' states in game order gives the state of the run
// played straight, so the table is the same whoever played which shard.
type Sharding struct {
	// Games is the default shard size (config: cluster.shard_games).
	Games int
	// Unit is the number of consecutive games a shard boundary may never fall inside (a
	// tournament whose games share state); nil or below 2: any game boundary will do.
	Unit func(r Run) int
	// Play plays games [first, first+count) of r from an empty tally and returns their
	// state. r.Games is the run's length; r.Batches is ignored. from is nil unless the game
	// is Chained: then it is the merged state of every game before first (nil for game 0).
	Play func(ctx context.Context, r Run, first, count int, from []byte) ([]byte, error)
	// Chained says a shard starts from what the shards before it left (Mafia's bots keep
	// files between games): shards are then played one after another, each handed the
	// merged state of those before it, so the table is the run played straight whoever
	// plays them. A cluster still spreads the runs of several challenges.
	Chained bool
	// Merge adds a shard's state (the games after those acc holds) to acc; acc nil: none yet.
	Merge func(acc, shard []byte) ([]byte, error)
	// Table is the run's table from the state of all its games.
	Table func(r Run, state []byte) (*Result, error)
}
