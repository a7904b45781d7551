// Package dirsnap saves what a bot has left in its directory, so that a run resumed from a
// checkpoint gives the bot back the files it kept between games (Mafia's bots may keep
// notes across the games of a tournament; the rules allow it).
//
// A Base is the directory as the bot got it (its prepared files), taken before the bot
// first runs. Changes(dir, base) encodes only what differs from it: files written or
// changed, directories and symbolic links made, paths removed. Apply(dir, changes) makes a
// fresh copy of the prepared directory into the one the bot left. Everything goes through
// os.Root: the directory is the bot's, and a symbolic link it planted never takes a read
// or a write outside it.
package dirsnap

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
)

// ErrTooLarge is returned by Changes when the bot's changes exceed the limit given: the
// checkpoint cannot hold them, and the caller takes none rather than one that loses them.
var ErrTooLarge = errors.New("the bot's files exceed what a checkpoint holds")

// entry is one path of a directory: its kind, mode and content's hash (files) or target
// (symbolic links).
type entry struct {
	mode fs.FileMode
	sum  [sha256.Size]byte
	link string
}

// Base is a directory's paths as the bot got them.
type Base map[string]entry

// Skip says which paths are never saved nor compared (the protocol's own files, rewritten
// before every game and every run); nil: none.
type Skip func(name string) bool

// Take records dir's paths.
func Take(dir string, skip Skip) (Base, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("dirsnap: %w", err)
	}
	defer root.Close()
	b := Base{}
	err = walk(root, skip, func(name string, e entry, _ []byte) error { b[name] = e; return nil })
	return b, err
}

// walk visits every path under root but the skipped ones, in lexical order, with its entry
// and (regular files) content.
func walk(root *os.Root, skip Skip, visit func(name string, e entry, data []byte) error) error {
	return fs.WalkDir(root.FS(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("dirsnap: %s: %w", name, err)
		}
		if name == "." {
			return nil
		}
		if skip != nil && skip(name) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return fmt.Errorf("dirsnap: %s: %w", name, err)
		}
		e := entry{mode: info.Mode()}
		var data []byte
		switch {
		case e.mode.IsRegular():
			if data, err = root.ReadFile(name); err != nil {
				return fmt.Errorf("dirsnap: %w", err)
			}
			e.sum = sha256.Sum256(data)
		case e.mode&fs.ModeSymlink != 0:
			if e.link, err = root.Readlink(name); err != nil {
				return fmt.Errorf("dirsnap: %w", err)
			}
		case e.mode.IsDir():
		default:
			return nil // fifos, sockets, devices: nothing a checkpoint can hold
		}
		return visit(name, e, data)
	})
}

// Change is one path that differs from the base.
type Change struct {
	Name    string      `json:"name"`
	Mode    fs.FileMode `json:"mode"`
	Data    []byte      `json:"data,omitempty"`
	Link    string      `json:"link,omitempty"`
	Removed bool        `json:"removed,omitempty"`
}

// Changes encodes how dir differs from base: at most limit bytes of file content, or
// ErrTooLarge.
func Changes(dir string, base Base, skip Skip, limit int64) ([]byte, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("dirsnap: %w", err)
	}
	defer root.Close()
	var out []Change
	seen := map[string]bool{}
	var size int64
	err = walk(root, skip, func(name string, e entry, data []byte) error {
		seen[name] = true
		if b, ok := base[name]; ok && b == e {
			return nil
		}
		if size += int64(len(data) + len(e.link) + len(name)); size > limit {
			return ErrTooLarge
		}
		out = append(out, Change{Name: name, Mode: e.mode, Data: data, Link: e.link})
		return nil
	})
	if err != nil {
		return nil, err
	}
	var gone []string
	for name := range base {
		if !seen[name] {
			gone = append(gone, name)
		}
	}
	slices.Sort(gone)
	for _, name := range gone {
		out = append(out, Change{Name: name, Removed: true})
	}
	return json.Marshal(out)
}

// Apply makes dir, a fresh copy of the base, into the directory Changes saw. Paths come
// from a checkpoint the host wrote, but they name what a bot made: each must stay inside
// dir, which os.Root enforces.
func Apply(dir string, changes []byte) error {
	var cs []Change
	if err := json.Unmarshal(changes, &cs); err != nil {
		return fmt.Errorf("dirsnap: saved files unreadable: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("dirsnap: %w", err)
	}
	defer root.Close()
	// Removals last in the list, but a path removed may be where a new one goes (a file
	// that became a directory): remove first, deepest first.
	for i := len(cs) - 1; i >= 0; i-- {
		if cs[i].Removed {
			if err := root.RemoveAll(cs[i].Name); err != nil {
				return fmt.Errorf("dirsnap: remove %s: %w", cs[i].Name, err)
			}
		}
	}
	for _, c := range cs {
		if c.Removed {
			continue
		}
		if dir := path.Dir(c.Name); dir != "." {
			if err := root.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("dirsnap: %w", err)
			}
		}
		if info, err := root.Lstat(c.Name); err == nil && (!info.IsDir() || !c.Mode.IsDir()) {
			if err := root.RemoveAll(c.Name); err != nil {
				return fmt.Errorf("dirsnap: %w", err)
			}
		}
		switch {
		case c.Mode.IsDir():
			if err := root.Mkdir(c.Name, c.Mode.Perm()); err != nil && !errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("dirsnap: %w", err)
			}
			err = root.Chmod(c.Name, c.Mode.Perm())
		case c.Mode&fs.ModeSymlink != 0:
			err = root.Symlink(c.Link, c.Name)
		default:
			err = writeFile(root, c.Name, c.Data, c.Mode.Perm())
		}
		if err != nil {
			return fmt.Errorf("dirsnap: restore %s: %w", c.Name, err)
		}
	}
	return nil
}

func writeFile(root *os.Root, name string, data []byte, perm fs.FileMode) error {
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if _, err := bytes.NewReader(data).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return root.Chmod(name, perm)
}
