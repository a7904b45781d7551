// Package sandboxtest gives other packages' tests the bwrap sandbox the sandbox's own
// tests use: probed once per test binary, failing (not skipping) when bwrap cannot run
// unless KOTHD_NO_BWRAP=1 says so explicitly.
package sandboxtest

import (
	"io"
	"log/slog"
	"os"
	"sync"
	"testing"

	"github.com/kothd/kothd/runner/sandbox"
)

var (
	bwrapOnce sync.Once
	bwrapSB   *sandbox.Bwrap
	bwrapErr  error
)

// NeedBwrap returns the bwrap sandbox, probed once per test binary.
func NeedBwrap(t testing.TB) *sandbox.Bwrap {
	t.Helper()
	if os.Getenv("KOTHD_NO_BWRAP") == "1" {
		t.Skip("KOTHD_NO_BWRAP=1: sandbox tests skipped on request")
	}
	bwrapOnce.Do(func() {
		var sb sandbox.Sandbox
		sb, bwrapErr = sandbox.NewSandbox("bwrap", slog.New(slog.NewTextHandler(io.Discard, nil)))
		if bwrapErr == nil {
			bwrapSB = sb.(*sandbox.Bwrap)
		}
	})
	if bwrapErr != nil {
		t.Fatalf("the bwrap sandbox does not work on this host (set KOTHD_NO_BWRAP=1 to skip sandbox tests explicitly): %v", bwrapErr)
	}
	return bwrapSB
}
