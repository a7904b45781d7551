package cluster

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
)

// maxBotDir bounds a bot directory sent through the object store (built bots included).
const maxBotDir = 256 << 20

// packDir is dir as a tar archive of its directories and regular files, in lexical order,
// with no owner or time: the same files give the same bytes, so its SHA-256 names the
// content. Anything else (a symlink, a device) is refused: a prepared bot has none.
func packDir(dir string) ([]byte, string, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil || rel == "." {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		h := &tar.Header{Name: filepath.ToSlash(rel), Mode: int64(info.Mode().Perm()), Format: tar.FormatPAX}
		switch {
		case d.IsDir():
			h.Typeflag, h.Name = tar.TypeDir, h.Name+"/"
		case info.Mode().IsRegular():
			h.Typeflag, h.Size = tar.TypeReg, info.Size()
		default:
			return fmt.Errorf("%s: neither a file nor a directory", path)
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if h.Typeflag == tar.TypeReg {
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			defer f.Close()
			if _, err := io.Copy(tw, f); err != nil {
				return err
			}
		}
		if buf.Len() > maxBotDir {
			return fmt.Errorf("more than %d MB", maxBotDir>>20)
		}
		return nil
	})
	if err == nil {
		err = tw.Close()
	}
	if err != nil {
		return nil, "", fmt.Errorf("pack bot directory %s: %w", dir, err)
	}
	sum := sha256.Sum256(buf.Bytes())
	return buf.Bytes(), hex.EncodeToString(sum[:]), nil
}

// unpackDir writes archive into a new directory dir (made beside it, then renamed, so a
// worker killed halfway leaves no half directory under the hash's name).
func unpackDir(archive []byte, dir string) error {
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".fetch-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	tr := tar.NewReader(bytes.NewReader(archive))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		name := filepath.FromSlash(strings.TrimSuffix(h.Name, "/"))
		if !filepath.IsLocal(name) {
			return fmt.Errorf("archive entry %q leaves the directory", h.Name)
		}
		path := filepath.Join(tmp, name)
		mode := fs.FileMode(h.Mode).Perm()
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(path, mode|0o700); err != nil {
				return err
			}
		case tar.TypeReg:
			f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, io.LimitReader(tr, maxBotDir))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		default:
			return fmt.Errorf("archive entry %q: type %c", h.Name, h.Typeflag)
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	return os.Rename(tmp, dir)
}

// upload puts a bot directory in the object store under its hash, unless it is there.
func upload(ctx context.Context, store jetstream.ObjectStore, archive []byte, hash string) error {
	if _, err := store.GetInfo(ctx, hash); err == nil {
		return nil
	} else if !errors.Is(err, jetstream.ErrObjectNotFound) {
		return fmt.Errorf("object store: %w", err)
	}
	if _, err := store.PutBytes(ctx, hash, archive); err != nil {
		return fmt.Errorf("object store: put bot %s: %w", hash[:12], err)
	}
	return nil
}

// fetch makes sure the bot directory named hash is under root (root/hash), fetching it from
// the object store and checking its content against the hash.
func fetch(ctx context.Context, store jetstream.ObjectStore, root, hash string) (string, error) {
	if len(hash) != 64 || strings.Trim(hash, "0123456789abcdef") != "" {
		return "", fmt.Errorf("bot hash %q is no SHA-256", hash)
	}
	dir := filepath.Join(root, hash)
	if _, err := os.Stat(dir); err == nil {
		return dir, nil
	}
	archive, err := store.GetBytes(ctx, hash)
	if err != nil {
		return "", fmt.Errorf("fetch bot %s: %w", hash[:12], err)
	}
	sum := sha256.Sum256(archive)
	if got := hex.EncodeToString(sum[:]); got != hash {
		return "", fmt.Errorf("fetch bot %s: content hashes to %s", hash[:12], got[:12])
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	if err := unpackDir(archive, dir); err != nil {
		if _, serr := os.Stat(dir); serr == nil {
			return dir, nil // another shard of this worker fetched it meanwhile
		}
		return "", fmt.Errorf("unpack bot %s: %w", hash[:12], err)
	}
	return dir, nil
}
