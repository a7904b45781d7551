package cron

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kothd/kothd/runner/sandbox"
)

// DefaultBuildCacheMB bounds a challenge's build cache when limits.build_cache_mb is unset.
const DefaultBuildCacheMB = 2048

// The build cache of a challenge is its bot directories, data_dir/bots/<challenge>/
// <answer>-<hash of its files>: what materialise wrote and a successful build left there
// (runner/build). An unchanged answer reuses its directory; an edited one gets a new one,
// and the old one is used no more. Each is at most its build's disk allowance, but edits
// add up: the cache is bounded as a whole (limits.build_cache_mb). After a cycle has
// prepared its bots, the directories no answer of that cycle uses go, least recently used
// first, until the cache fits; a directory of this cycle never goes (its run needs it),
// even when those alone are over the bound. An answer whose directory went (reverted to
// an earlier revision, say) is simply materialised and built again when it comes back.
// A directory's last use is its modification time, which materialise sets.

// cacheEntry is one bot directory of the cache.
type cacheEntry struct {
	path  string
	bytes int64
	used  time.Time
}

// boundBuildCache removes the least recently used directories under root that inUse does
// not name until what root holds is at most bound bytes, and the leftovers of builds that
// never finished (a daemon killed mid-build: .build-* and .new-* directories; no build of
// this challenge runs while its cycle bounds the cache). It returns what it removed and
// how much root holds after.
func boundBuildCache(root string, inUse map[string]bool, bound int64) (evicted []string, total int64, err error) {
	list, err := os.ReadDir(root)
	if err != nil {
		return nil, 0, fmt.Errorf("bound the build cache: %w", err)
	}
	var unused []cacheEntry
	for _, e := range list {
		path := filepath.Join(root, e.Name())
		if strings.HasPrefix(e.Name(), ".build-") || strings.HasPrefix(e.Name(), ".new-") {
			if err := os.RemoveAll(path); err != nil {
				return evicted, total, fmt.Errorf("bound the build cache: remove an unfinished build: %w", err)
			}
			continue
		}
		u, _ := sandbox.UsageOf(path)
		total += u.Bytes
		info, err := e.Info()
		if err != nil || !e.IsDir() || inUse[path] {
			continue
		}
		unused = append(unused, cacheEntry{path: path, bytes: u.Bytes, used: info.ModTime()})
	}
	slices.SortFunc(unused, func(a, b cacheEntry) int {
		return cmp.Or(a.used.Compare(b.used), cmp.Compare(a.path, b.path))
	})
	for _, e := range unused {
		if total <= bound {
			break
		}
		if err := os.RemoveAll(e.path); err != nil {
			return evicted, total, fmt.Errorf("bound the build cache: evict %s: %w", filepath.Base(e.path), err)
		}
		total -= e.bytes
		evicted = append(evicted, e.path)
	}
	return evicted, total, nil
}
