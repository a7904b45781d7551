package dirsnap

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// prepared makes a bot's directory as it was prepared.
func prepared(t *testing.T) string {
	dir := t.TempDir()
	write(t, dir, "run", "#!/bin/sh\n")
	write(t, dir, "notes", "old")
	write(t, dir, "gone", "x")
	write(t, dir, "from_server", "protocol")
	return dir
}

var protocol = func(name string) bool { return name == "from_server" }

// What a bot did to its directory (a file changed, one removed, a directory and files
// made, a link to a file outside) is saved and applied to a fresh copy of the prepared
// directory, which then holds what the bot left; the protocol's files are not saved; a
// link is saved as a link, never read through.
func TestChangesApply(t *testing.T) {
	dir := prepared(t)
	base, err := Take(dir, protocol)
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, "notes", "new")
	write(t, dir, "memory/games", "7")
	write(t, dir, "from_server", "changed by the host")
	os.Remove(filepath.Join(dir, "gone"))
	if err := os.Symlink("/etc/hostname", filepath.Join(dir, "peek")); err != nil {
		t.Fatal(err)
	}
	kept, err := Changes(dir, base, protocol, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(kept), "from_server") {
		t.Errorf("a protocol file was saved: %s", kept)
	}
	fresh := prepared(t)
	if err := Apply(fresh, kept); err != nil {
		t.Fatal(err)
	}
	left, _ := Take(dir, protocol)
	got, _ := Take(fresh, protocol)
	if !reflect.DeepEqual(got, left) {
		t.Errorf("restored %v\nthe bot left %v", got, left)
	}
	if b, _ := os.ReadFile(filepath.Join(fresh, "memory/games")); string(b) != "7" {
		t.Errorf("memory/games restored as %q", b)
	}
	if l, err := os.Readlink(filepath.Join(fresh, "peek")); err != nil || l != "/etc/hostname" {
		t.Errorf("the link restored as %q, %v", l, err)
	}
}

// More than the limit is refused, not cut.
func TestChangesTooLarge(t *testing.T) {
	dir := prepared(t)
	base, _ := Take(dir, nil)
	write(t, dir, "big", strings.Repeat("x", 5000))
	if _, err := Changes(dir, base, nil, 4096); !errors.Is(err, ErrTooLarge) {
		t.Errorf("5000 bytes under a 4096-byte limit: %v", err)
	}
}

// A saved path that leads out of the directory (through a link the bot planted, or with
// ..) is refused: nothing is written outside.
func TestApplyStaysInside(t *testing.T) {
	outside := t.TempDir()
	dir := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	for _, kept := range []string{
		`[{"name":"out/planted","mode":420,"data":"eA=="}]`,
		`[{"name":"../planted","mode":420,"data":"eA=="}]`,
	} {
		if err := Apply(dir, []byte(kept)); err == nil {
			t.Errorf("%s applied", kept)
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "planted")); err == nil {
		t.Error("a file was written outside the directory")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "planted")); err == nil {
		t.Error("a file was written beside the directory")
	}
}
