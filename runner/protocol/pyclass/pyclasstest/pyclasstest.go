// Package pyclasstest gives challenge packages' tests a Python with their harness: a
// script runs beside the installed pyclass.py and challenge module, as a bot's process
// would import them, without the protocol around it.
package pyclasstest

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/runner/protocol/pyclass"
)

// Python is the interpreter the harness tests run (Debian's, as config.yaml's python).
const Python = "/usr/bin/python3"

// prelude makes the harness importable as the bot's process has it: one pyclass module,
// the one the challenge module imports.
const prelude = `import sys
sys.path.insert(0, ".")
import pyclass
sys.modules.setdefault("pyclass", pyclass)
`

// Run installs h in a fresh directory and runs script there after prelude (pyclass
// imported; the challenge module is importable by its name). It fails the test if Python
// fails, and returns what the script printed (standard output and error).
func Run(t testing.TB, h *engine.Harness, script string) string {
	t.Helper()
	dir := t.TempDir()
	if err := pyclass.InstallHarness(dir, h.Module, h.Source); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(Python, "-c", prelude+script)
	cmd.Dir = filepath.Join(dir, pyclass.HarnessDir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	return string(out)
}
