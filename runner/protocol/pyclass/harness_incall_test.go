package pyclass

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kothd/kothd/engine"
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
pyclass._serve(lines(), w, call, call)
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

// The packed request the runner writes is read by the harness as the calls it holds: each
// call's arguments a list of ints, or None for none; and replies that are all booleans go
// back as one string, which the runner reads. A batch with any other result goes back as
// JSON objects.
func TestHarnessReadsPackedRequests(t *testing.T) {
	dir := t.TempDir()
	if err := InstallTestHarness(dir); err != nil {
		t.Fatal(err)
	}
	calls := []engine.Call{
		{Game: 70000, Method: "start", Args: intsArgs{1, 1, 4, -3, 39}},
		{Game: 2, Method: "end"},
		{Game: 5, Method: "next", Args: intsArgs{}},
	}
	req, err := appendRequest(nil, &packer{}, 1, 3, calls, []int{0, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/usr/bin/python3", "-c", `
import sys, os
sys.path.insert(0, ".")
import pyclass
sys.modules.setdefault("pyclass", pyclass)
got = []
def call(game, method, args):
    got.append((game, method, args))
    return sys.argv[2] if game == 5 and sys.argv[2] else game != 5
r, w = os.pipe()
pyclass._serve(iter([sys.argv[1].encode()]), w, call, call)
os.close(w)
print(got)
print(os.read(r, 4096).decode().strip())
`, string(req))
	for _, odd := range []string{"", "x"} {
		cmd := exec.Command(cmd.Args[0], append(cmd.Args[1:], odd)...)
		cmd.Dir = filepath.Join(dir, HarnessDir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("python: %v\n%s", err, out)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) != 2 || lines[0] != `[(70000, 'start', [1, 1, 4, -3, 39]), (2, 'end', None), (5, 'next', [])]` {
			t.Fatalf("the harness read %s", out)
		}
		replies, ok := parseReplies([]byte(lines[1]), 3, nil)
		want := []string{"true", "true", "false"}
		if odd != "" {
			want[2] = `"x"`
		}
		if !ok || string(replies[0].R) != want[0] || string(replies[1].R) != want[1] || string(replies[2].R) != want[2] {
			t.Fatalf("odd %q: replies %s read as %+v (%v)", odd, lines[1], replies, ok)
		}
		if (odd == "") != strings.HasPrefix(lines[1], `{"b":`) {
			t.Errorf("odd %q: reply line %s", odd, lines[1])
		}
	}
}

// A bot out of memory is told where: the harness imports what describes a failure only
// when one happens, and here that import fails too (the bot still holds the memory), yet
// the answer's frame and its source line are in the fault's detail, as before.
func TestOutOfMemoryNamesTheLine(t *testing.T) {
	dir := t.TempDir()
	if err := InstallTestHarness(dir); err != nil {
		t.Fatal(err)
	}
	bot := "hoard = []\nclass HogBot(Bot):\n    def make_throw(self, scores, last_round):\n        while True:\n            hoard.append(bytearray(65536))\n        yield False\n"
	if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte(bot), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", "ulimit -d 262144 && exec /usr/bin/python3 -u -B "+HarnessDir+"/pyclass.py forty bot.py")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(`{"class":"HogBot","seed":1}
{"t":30,"w":60,"calls":[{"g":1,"m":"new","a":{"seat":0}}]}
{"t":30,"w":60,"calls":[{"g":1,"m":"start","a":{"throws":[3],"scores":[0,0],"last":false}}]}
`)
	out, _ := cmd.Output() // the process may die afterwards, still holding the memory
	want := `{"replies":[{"f":"memory limit","d":"bot.py line 5 in make_throw: hoard.append(bytearray(65536))\nMemoryError"}]}`
	if !strings.Contains(string(out), want) {
		t.Fatalf("harness output:\n%s\nwant the line\n%s", out, want)
	}
}

// On a Python without CPython's _json and _signal (PyPy), the harness falls back to the
// json and signal modules and speaks the same protocol.
func TestHarnessWithoutCAccelerators(t *testing.T) {
	dir := t.TempDir()
	if err := InstallTestHarness(dir); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/usr/bin/python3", "-c", `
import sys, signal  # signal itself is made of _signal here, so it is imported first
sys.modules["_json"] = sys.modules["_signal"] = None  # import fails, as where they do not exist
sys.path.insert(0, ".")
import pyclass
print(pyclass.signal.__name__, pyclass._loads(' {"t":0.5,"m":["next"],"a":[1,-2,NaN]} '), pyclass._reply({"é": [1, 2.5, None, True]}))
try:
    pyclass._loads('{"a":1} x')
except ValueError as e:
    print("refused:", e)
`)
	cmd.Dir = filepath.Join(dir, HarnessDir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	want := `signal {'t': 0.5, 'm': ['next'], 'a': [1, -2, nan]} {"r":{"\u00e9":[1,2.5,null,true]}}
refused: protocol line has extra data: '{"a":1} x'
`
	if string(out) != want {
		t.Fatalf("harness without _json and _signal:\n%s\nwant\n%s", out, want)
	}
}
