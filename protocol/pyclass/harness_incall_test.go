package pyclass

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A timer signal whose handler runs in the last instants of a call, in the harness's
// finally before it marks the call over, raises CallTimeout there: the call is a timeout,
// and the harness must not go back to reading its next batch with the call still marked as
// running (its timers stay armed between batches: the next tick would then interrupt the
// harness's own read and end the process). The signal is simulated by a trace function
// that raises at that line.
func TestCallMarkedOverAfterLateTimeout(t *testing.T) {
	dir := t.TempDir()
	if err := InstallTestHarness(dir); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/usr/bin/python3", "-c", `
import sys, os
sys.path.insert(0, ".")
import pyclass
sys.modules.setdefault("pyclass", pyclass)
serve_code = pyclass._serve.__code__
def tracer(frame, event, arg):
    if frame.f_code is serve_code:
        def local(frame, event, arg):
            if event == "line" and "_in_call = False" in open(serve_code.co_filename).read().splitlines()[frame.f_lineno - 1]:
                frame.f_trace = None
                sys.settrace(None)
                raise pyclass.CallTimeout()
            return local
        return local
    return None
def call(game, method, args):
    return True
seen = []
def lines():
    yield b'{"t":0,"w":0,"calls":[{"g":1,"m":"x","a":null}]}'
    seen.append(pyclass._in_call)
r, w = os.pipe()
sys.settrace(tracer)
pyclass._serve(lines(), w, call)
os.close(w)
print(os.read(r, 4096).decode().strip(), seen)
`)
	cmd.Dir = filepath.Join(dir, HarnessDir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), `"f":"timeout"`) || !strings.HasSuffix(strings.TrimSpace(string(out)), "[False]") {
		t.Fatalf("reply and call state when the harness reads again: %s", out)
	}
}
