package pyclass

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// deepModule's Handler returns results whose encoding (the harness's _reply) raises an
// error other than the TypeError or ValueError _reply itself turns into "bad output": a
// result nested deeper than the recursion limit. The Python loop serves _reply inside the
// call's try, so that error is the call's fault and the loop goes on; the C loop must do
// the same, not end the process (every game the process hosts lost).
const deepModule = `
import pyclass

class Player:
    pass

def namespace():
    return {"Player": Player}

def competitors(ns, names_before):
    return [v for k, v in ns.items() if k not in names_before and isinstance(v, type) and issubclass(v, Player)]

class Handler:
    def __init__(self, cls):
        self.inst = cls()

    def call(self, game, method, a):
        if method == "deep":
            v = []
            for _ in range(100000):
                v = [v]
            return v
        if method == "bool":
            return bool(a[0] if type(a) is list else a)
        raise ValueError("unknown method %r" % method)
`

func TestFastLoopReplyErrorIsTheCallsFault(t *testing.T) {
	t.Setenv(FastEnv, "")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte("class Deep(Player):\n    pass\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := InstallHarness(dir, "deep", []byte(deepModule)); err != nil {
		t.Fatal(err)
	}
	lines := []string{
		packedLine(t, 1, 3, call(1, "deep", nil), call(2, "bool", intsArgs{1})),
		jsonLine(t, 1, 3, call(1, "bool", true), call(2, "deep", nil)),
		packedLine(t, 1, 3, call(3, "bool", intsArgs{0})),
		`{"stats":true}`,
	}
	out := compareLoops(t, dir, "deep", "Deep", lines)
	if !strings.Contains(out, "RecursionError") || !strings.Contains(out, `{"b":"0"}`) {
		t.Fatalf("replies: %s", out)
	}
}

// Forty's dispatch in C says a game has no instance with Handler.call's own words: its
// "%d" of the game as the request had it (the general form may name a game by any JSON
// value: a float, true, a string, where %d fails).
func TestFastLoopLostGameAsHandlerCall(t *testing.T) {
	t.Setenv(FastEnv, "")
	dir := pyAnswer(t, fortyBot)
	lines := []string{
		`{"t":1,"w":3,"calls":[{"g":2.5,"m":"next","a":[1]},{"g":true,"m":"next","a":[1]},{"g":"x","m":"start","a":[0,1,2,0]},{"g":12345678901234567890,"m":"next","a":[1]}]}`,
		`{"stats":true}`,
	}
	out := compareLoops(t, dir, "forty", "Roller", lines)
	if !strings.Contains(out, "no instance for game 2 ") || !strings.Contains(out, "TypeError") {
		t.Fatalf("replies: %s", out)
	}
}
