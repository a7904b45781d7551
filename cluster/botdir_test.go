package cluster

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
)

// A bot directory goes through the object store under its content hash and comes back
// whole on a worker; an object whose content is not what its name says is refused.
func TestBotDirectoryByContentHash(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	srv, url, err := Embed(addr, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	nc, err := Connect(url, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx := context.Background()
	_, store, err := setup(ctx, js, 0, 3)
	if err != nil {
		t.Fatal(err)
	}

	src := t.TempDir()
	os.WriteFile(filepath.Join(src, "bot.py"), []byte("class B(Bot): pass\n"), 0o644)
	os.MkdirAll(filepath.Join(src, "lib"), 0o755)
	os.WriteFile(filepath.Join(src, "lib", "run"), []byte("#!/bin/sh\n"), 0o755)
	archive, hash, err := packDir(src)
	if err != nil {
		t.Fatal(err)
	}
	if _, again, _ := packDir(src); again != hash {
		t.Fatal("the same files hash differently")
	}
	if err := upload(ctx, store, archive, hash); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	dir, err := fetch(ctx, store, root, hash)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "bot.py")); string(b) != "class B(Bot): pass\n" {
		t.Errorf("bot.py came back as %q", b)
	}
	if fi, err := os.Stat(filepath.Join(dir, "lib", "run")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("lib/run: %v %v", fi, err)
	}

	// A forged object: stored under a hash its content does not have.
	forged := fmt.Sprintf("%064x", 1)
	if _, err := store.PutBytes(ctx, forged, archive); err != nil {
		t.Fatal(err)
	}
	if _, err := fetch(ctx, store, root, forged); err == nil || !strings.Contains(err.Error(), "hashes to") {
		t.Fatalf("forged object fetched: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, forged)); err == nil {
		t.Error("the forged object left a directory")
	}
	if _, err := fetch(ctx, store, root, "../../etc"); err == nil {
		t.Error("a hash naming a path was fetched")
	}
}
