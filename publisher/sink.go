package publisher

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
)

// Sink is a place leaderboards are published to. files maps a relative, slash-separated
// name ("forty.md", "forty/runs/3.json") to its content; Publish makes the whole set
// visible at once or reports why not, never a part of it. Files a publication does not
// name are left as they are.
type Sink interface {
	Target() string // where, for logs and the publications table
	Publish(ctx context.Context, files map[string][]byte, message string) (commitID string, err error)
}

// Checker is a sink that can prove, cheaply and without publishing, that a publication
// would be allowed (GitHub: token and branch; Dir: a writable directory).
type Checker interface {
	CheckWrite(ctx context.Context) error
}

// CheckWrite runs the check of every sink that has one: a preflight before anything is
// played, so a bad token or an unwritable directory shows at start, not after a tournament.
func CheckWrite(ctx context.Context, sinks []Sink) error {
	var errs []error
	for _, s := range sinks {
		if c, ok := s.(Checker); ok {
			if err := c.CheckWrite(ctx); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// Hash identifies a set of files, to skip publishing what has not changed.
func Hash(files map[string][]byte) string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(files[n]))
		h.Write(files[n])
	}
	return hex.EncodeToString(h.Sum(nil))
}
