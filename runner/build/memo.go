package build

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
)

// Memo remembers, across cycles and restarts, outcomes that depend only on content (the
// store implements it): a failed build, an answer's class listing. Without it (nil) the
// work is done every time. Callers key entries by a hash of everything the outcome depends
// on, so an entry never goes stale: a changed answer, harness, command or limit is a new
// key.
type Memo interface {
	Recall(ctx context.Context, kind, key string) (value []byte, ok bool, err error)
	Remember(ctx context.Context, kind, key string, value []byte) error
}

// The kinds of entries the runner keeps in a Memo.
const (
	memoBuildFailure = "build failure"
	MemoClasses      = "classes"
)

// MemoKey is the hex SHA-256 of the parts, each length-prefixed (so no two lists of parts
// share a key).
func MemoKey(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s\n", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// HashTree is the hex SHA-256 of a directory's regular files, recursively (names relative
// to dir, and contents, in walk order, which is lexical). Symlinks and special files are
// named but not followed or read. It hashes what the host wrote there (the answer's files,
// the harness); the directory is read-only to the answer's code while it is listed.
func HashTree(dir string) (string, error) {
	h := sha256.New()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			fmt.Fprintf(h, "d %d:%s\n", len(rel), rel)
		case d.Type().IsRegular():
			return hashFile(h, path, rel)
		default:
			fmt.Fprintf(h, "o %d:%s %s\n", len(rel), rel, d.Type())
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("hash %s: %w", dir, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func hashFile(h hash.Hash, path, rel string) error {
	f, size, err := openBotFile(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fmt.Fprintf(h, "f %d:%s %d:", len(rel), rel, size)
	_, err = io.Copy(h, io.LimitReader(f, size))
	return err
}

// InterpreterID identifies an interpreter's build by its resolved path, size and
// modification time, so that an upgrade (a new Python) is a new key without hashing the
// binary every time.
func InterpreterID(path string) string {
	if p, err := exec.LookPath(path); err == nil {
		path = p
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return path
	}
	fi, err := os.Stat(real)
	if err != nil {
		return real
	}
	return fmt.Sprintf("%s %d %d", real, fi.Size(), fi.ModTime().UnixNano())
}
