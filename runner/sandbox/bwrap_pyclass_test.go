package sandbox_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/kothd/kothd/runner/protocol/pyclass"
	"github.com/kothd/kothd/runner/sandbox"

	"github.com/kothd/kothd/engine"
)

func TestBwrapSetupFailureIsHostFault(t *testing.T) {
	good := sandbox.NeedBwrap(t)
	broken := *good
	broken.ReadOnly = append(slices.Clone(good.ReadOnly), "/nonexistent-kothd-test")
	dir := t.TempDir()
	_, f := sandbox.RunArgv(context.Background(), &broken, sandbox.ProcSpec{Dir: dir, Argv: []string{"true"}}, nil, 30*time.Second)
	if f == nil || f.Outcome != engine.HostFault {
		t.Errorf("a sandbox that could not be built: %v, want a host fault", f)
	}
	// The bot cannot fake it: the same words and exit status from the bot are its crash.
	_, f = sandbox.RunArgv(context.Background(), good, sandbox.ProcSpec{Dir: dir, Argv: []string{"/bin/sh", "-c", "echo 'bwrap: Can'\\''t find source path /x: No such file or directory' >&2; exit 1"}}, nil, 30*time.Second)
	if f == nil || f.Outcome != engine.Crash {
		t.Errorf("a bot imitating bwrap: %v, want a crash", f)
	}
	// The pyclass protocol sees the same.
	if err := installTestHarness(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte("class B(Bot):\n    pass\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := pyclass.ListClasses(context.Background(), &broken, pyclass.PyConfig{Harness: "forty", Python: "/usr/bin/python3", StartTimeout: 30 * time.Second}, dir)
	var fault *engine.Fault
	if !errors.As(err, &fault) || fault.Outcome != engine.HostFault {
		t.Errorf("pyclass start in a broken sandbox: %v, want a host fault", err)
	}
}
