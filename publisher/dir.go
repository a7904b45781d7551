package publisher

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// Dir publishes into a local directory, all files of a publication or none, even when
// kothd is killed half-way: every file is first written in full to a temporary name
// beside its final one; then a journal naming them all is written (under a temporary
// name, then renamed: it exists complete or not at all); then the files are renamed into
// place and the journal removed. Repair, run before every publication (and at start),
// finishes what a journal records and removes temporary files no journal records, so a
// kill before the journal leaves the last publication, a kill after it the new one.
type Dir struct{ Path string }

// Temporary names: ".<name>.<id>.kothd-tmp" beside the final file, and the journal
// ".kothd-publish.<id>.journal" at the top of the directory.
const (
	tmpSuffix     = ".kothd-tmp"
	journalPrefix = ".kothd-publish."
	journalSuffix = ".journal"
)

// dirMu serialises publications and repairs in this process: a repair must not take a
// running publication's files for a killed one's. (One kothd per data directory is the
// daemon's lock's business.)
var dirMu sync.Mutex

// dirHook, when set (by the crash test's child process), is called at each step of a
// publication, so the test can kill it exactly there.
var dirHook func(step, name string)

func (d Dir) Target() string { return d.Path }

type journal struct {
	Files []journalEntry `json:"files"`
}

type journalEntry struct {
	Name string `json:"name"` // final, relative to the directory
	Tmp  string `json:"tmp"`  // temporary, relative to the directory
}

func (d Dir) Publish(ctx context.Context, files map[string][]byte, message string) (string, error) {
	dirMu.Lock()
	defer dirMu.Unlock()
	if err := d.repair(); err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	var b [8]byte
	rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	var j journal
	for _, name := range sortedNames(files) {
		if err := checkName(name); err != nil {
			return "", fmt.Errorf("publish to %s: %w", d.Path, err)
		}
		dir, base := path.Split(name)
		tmp := dir + "." + base + "." + id + tmpSuffix
		if err := writeSynced(filepath.Join(d.Path, filepath.FromSlash(tmp)), files[name]); err != nil {
			d.discard(j)
			return "", fmt.Errorf("publish %s: %w", filepath.Join(d.Path, name), err)
		}
		j.Files = append(j.Files, journalEntry{Name: name, Tmp: tmp})
		hook("written", name)
	}
	raw, _ := json.Marshal(j)
	jpath := filepath.Join(d.Path, journalPrefix+id+journalSuffix)
	if err := writeSynced(jpath+tmpSuffix, raw); err != nil {
		d.discard(j)
		return "", fmt.Errorf("publish to %s: journal: %w", d.Path, err)
	}
	if err := os.Rename(jpath+tmpSuffix, jpath); err != nil {
		d.discard(j)
		return "", fmt.Errorf("publish to %s: journal: %w", d.Path, err)
	}
	syncDir(d.Path)
	hook("journal", "")
	// From here on the publication happens: if a rename fails (or kothd dies) the next
	// repair finishes it.
	if err := d.apply(j, false); err != nil {
		return "", fmt.Errorf("publish to %s: %w (the next publication completes it)", d.Path, err)
	}
	if err := os.Remove(jpath); err != nil {
		return "", fmt.Errorf("publish to %s: remove journal: %w", d.Path, err)
	}
	syncDir(d.Path)
	return "", nil
}

// CheckWrite proves the directory can take a publication: it exists (or is made) and a
// file can be written in it and removed.
func (d Dir) CheckWrite(ctx context.Context) error {
	dirMu.Lock()
	defer dirMu.Unlock()
	if err := os.MkdirAll(d.Path, 0o755); err != nil {
		return fmt.Errorf("output directory %s: %w", d.Path, err)
	}
	p := filepath.Join(d.Path, ".kothd-check"+tmpSuffix)
	if err := writeSynced(p, []byte("kothd write check\n")); err != nil {
		return fmt.Errorf("output directory %s is not writable: %w", d.Path, err)
	}
	return os.Remove(p)
}

// Repair brings the directory to a whole publication after a kill: journalled
// publications are finished, unjournalled temporary files removed.
func (d Dir) Repair() error {
	dirMu.Lock()
	defer dirMu.Unlock()
	return d.repair()
}

func (d Dir) repair() error {
	if err := os.MkdirAll(d.Path, 0o755); err != nil {
		return fmt.Errorf("publish to %s: %w", d.Path, err)
	}
	entries, err := os.ReadDir(d.Path)
	if err != nil {
		return fmt.Errorf("publish to %s: %w", d.Path, err)
	}
	for _, e := range entries {
		n := e.Name()
		if !strings.HasPrefix(n, journalPrefix) || !strings.HasSuffix(n, journalSuffix) {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(d.Path, n))
		if err != nil {
			return fmt.Errorf("publish to %s: read journal %s: %w", d.Path, n, err)
		}
		var j journal
		if err := json.Unmarshal(raw, &j); err != nil {
			return fmt.Errorf("publish to %s: journal %s is damaged (%v): move it away and publish again", d.Path, n, err)
		}
		for _, f := range j.Files {
			if checkName(f.Name) != nil || checkName(f.Tmp) != nil {
				return fmt.Errorf("publish to %s: journal %s names %q: not a file of this directory", d.Path, n, f.Name)
			}
		}
		if err := d.apply(j, true); err != nil {
			return fmt.Errorf("publish to %s: finish the publication of journal %s: %w", d.Path, n, err)
		}
		if err := os.Remove(filepath.Join(d.Path, n)); err != nil {
			return fmt.Errorf("publish to %s: %w", d.Path, err)
		}
		syncDir(d.Path)
	}
	// What is left temporary belongs to no journal: a publication killed before it
	// committed, or a journal killed while being written. Also the ".tmp" files of
	// earlier kothd versions, which wrote only "forty.md.tmp" beside "forty.md" at the top:
	// nothing else with a ".tmp" name is kothd's to remove (the directory may be shared,
	// a web root or a checkout, with the host's own "notes.tmp" beside "notes").
	return filepath.WalkDir(d.Path, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		n := e.Name()
		legacy := filepath.Dir(p) == filepath.Clean(d.Path) &&
			(strings.HasSuffix(n, ".md.tmp") || strings.HasSuffix(n, ".json.tmp")) && exists(strings.TrimSuffix(p, ".tmp"))
		if strings.HasSuffix(n, tmpSuffix) || legacy {
			if err := os.Remove(p); err != nil {
				return fmt.Errorf("publish to %s: remove stray %s: %w", d.Path, p, err)
			}
		}
		return nil
	})
}

// apply renames a journal's temporary files into place. Repairing, a temporary file
// already gone was renamed before the kill; publishing, it is an error (someone else
// touched the directory), never a silent success.
func (d Dir) apply(j journal, repairing bool) error {
	dirs := map[string]bool{}
	for _, f := range j.Files {
		tmp := filepath.Join(d.Path, filepath.FromSlash(f.Tmp))
		final := filepath.Join(d.Path, filepath.FromSlash(f.Name))
		if err := os.Rename(tmp, final); err != nil {
			if repairing && errors.Is(err, fs.ErrNotExist) && exists(final) {
				continue // renamed before the kill
			}
			return err
		}
		dirs[filepath.Dir(final)] = true
		hook("renamed", f.Name)
	}
	for dir := range dirs {
		syncDir(dir)
	}
	return nil
}

// discard removes the temporary files of a publication that failed before its journal.
func (d Dir) discard(j journal) {
	for _, f := range j.Files {
		os.Remove(filepath.Join(d.Path, filepath.FromSlash(f.Tmp)))
	}
}

// checkName accepts a clean relative slash path inside the directory.
func checkName(name string) error {
	if name == "" || path.IsAbs(name) || path.Clean(name) != name || name == ".." || strings.HasPrefix(name, "../") || strings.Contains(name, "\\") {
		return fmt.Errorf("file name %q is not a clean relative path", name)
	}
	return nil
}

func writeSynced(p string, content []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(content); err != nil {
		f.Close()
		os.Remove(p)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(p)
		return err
	}
	return f.Close()
}

// syncDir makes renames in dir durable; a failure only weakens durability after a power
// loss, which the next repair also covers, so it is not reported.
func syncDir(dir string) {
	if f, err := os.Open(dir); err == nil {
		f.Sync()
		f.Close()
	}
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func sortedNames(files map[string][]byte) []string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func hook(step, name string) {
	if dirHook != nil {
		dirHook(step, name)
	}
}
