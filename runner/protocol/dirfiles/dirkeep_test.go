package dirfiles

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/runner/sandbox"
)

// noteBot counts its runs in a file and a directory it makes, and answers the count.
const noteBot = "#!/bin/bash\nn=$(cat count 2>/dev/null || echo 0); n=$((n+1)); echo $n > count\n" +
	"mkdir -p notes; echo $n > notes/last; echo \"say $n\" > to_server\n"

// A bot's kept files (what it wrote beside its program) go from one pool into a fresh copy
// of its prepared directory in another, under the real sandbox: the bot runs on from where
// it was. Its own program and the protocol's files are not saved.
func TestDirPoolKeepsFilesAcrossPools(t *testing.T) {
	sb, err := sandbox.NewSandbox("bwrap", nil)
	if err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	run := func(p *DirPool) string {
		t.Helper()
		if err := p.Setup(0, 0, []string{"Note", "Other"}); err != nil {
			t.Fatal(err)
		}
		out, f := p.Run(ctx, engine.At{}, 0, true)
		if f != nil {
			t.Fatalf("run: %v", f)
		}
		return out
	}
	first := NewDirPool(sb, DirConfig{Timeout: 10 * time.Second}, []engine.Bot{dirBot(t, "Note", map[string]string{RunFile: noteBot})})
	defer first.Close()
	for range 3 {
		run(first)
	}
	kept, err := first.Keep(0)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{`"run"`, `"players"`, `"from_server"`, `"to_server"`} {
		if strings.Contains(string(kept), name) {
			t.Errorf("kept files hold %s: %s", name, kept)
		}
	}

	second := NewDirPool(sb, DirConfig{Timeout: 10 * time.Second}, []engine.Bot{dirBot(t, "Note", map[string]string{RunFile: noteBot})})
	defer second.Close()
	if err := second.Restore(0, kept); err != nil {
		t.Fatal(err)
	}
	if out := run(second); out != "say 4\n" {
		t.Errorf("after the restore the bot answered %q, want its fourth run's \"say 4\"", out)
	}
}

// A bot that keeps more than a checkpoint holds makes Keep say so with
// engine.ErrNoCheckpoint: the checkpoint is skipped, not taken without the files.
func TestDirPoolKeepTooLarge(t *testing.T) {
	b := dirBot(t, "Hoarder", map[string]string{RunFile: "#!/bin/sh\nhead -c 5000000 /dev/zero > hoard\n"})
	p := NewDirPool(sandbox.Unsandboxed{}, DirConfig{Timeout: 10 * time.Second}, []engine.Bot{b})
	defer p.Close()
	if err := p.Setup(0, 0, []string{"Hoarder"}); err != nil {
		t.Fatal(err)
	}
	if _, f := p.Run(context.Background(), engine.At{}, 0, true); f != nil {
		t.Fatal(f)
	}
	if _, err := p.Keep(0); !errors.Is(err, engine.ErrNoCheckpoint) {
		t.Errorf("5 MB kept: %v, want ErrNoCheckpoint", err)
	}
}
