package publisher

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// Sink is a place leaderboards are published to. files maps a relative name
// ("forty.md") to its content; Publish writes them all or reports why not.
type Sink interface {
	Target() string // where, for logs and the publications table
	Publish(ctx context.Context, files map[string][]byte, message string) (commitID string, err error)
}

// Files is the set of files published for one board.
func Files(b *Board) map[string][]byte {
	return map[string][]byte{
		b.Challenge + ".md":   Markdown(b),
		b.Challenge + ".json": JSON(b),
	}
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

// Dir publishes into a local directory. Each file is written to a temporary name and
// renamed, so a reader never sees half a leaderboard.
type Dir struct{ Path string }

func (d Dir) Target() string { return d.Path }

func (d Dir) Publish(ctx context.Context, files map[string][]byte, message string) (string, error) {
	if err := os.MkdirAll(d.Path, 0o755); err != nil {
		return "", fmt.Errorf("publish to %s: %w", d.Path, err)
	}
	for name, content := range files {
		final := filepath.Join(d.Path, name)
		tmp := final + ".tmp"
		if err := os.WriteFile(tmp, content, 0o644); err != nil {
			return "", fmt.Errorf("publish %s: %w", final, err)
		}
		if err := os.Rename(tmp, final); err != nil {
			return "", fmt.Errorf("publish %s: %w", final, err)
		}
	}
	return "", nil
}
