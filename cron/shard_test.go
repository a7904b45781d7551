package cron

import (
	"reflect"
	"testing"
)

// Shards are cut from game 0 whatever the start, so a resumed run plays the shards the
// uninterrupted one would have; sizes are rounded up to whole units.
func TestCutShards(t *testing.T) {
	for _, c := range []struct {
		start, games, size, unit int
		want                     []Shard
	}{
		{0, 25, 10, 1, []Shard{{0, 0, 10}, {1, 10, 10}, {2, 20, 5}}},
		{10, 25, 10, 1, []Shard{{1, 10, 10}, {2, 20, 5}}},
		{15, 25, 10, 1, []Shard{{1, 15, 5}, {2, 20, 5}}},
		{0, 30, 7, 5, []Shard{{0, 0, 10}, {1, 10, 10}, {2, 20, 10}}},
		{25, 25, 10, 1, nil},
	} {
		if got := CutShards(c.start, c.games, c.size, c.unit); !reflect.DeepEqual(got, c.want) {
			t.Errorf("CutShards(%d, %d, %d, %d) = %v, want %v", c.start, c.games, c.size, c.unit, got, c.want)
		}
	}
}
