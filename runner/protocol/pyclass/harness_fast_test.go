package pyclass

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/engine/forty"
	"github.com/kothd/kothd/runner/sandbox"
)

// The harness's two batch loops (pyfast.go: C when kothd could build it, else Python) must
// write the same replies byte for byte: the same request lines go to the harness with its
// C loop installed and without it, and the outputs are compared. The lines cover both
// request forms, forty's hot path (served in C without Handler.call) and its Python
// methods, every kind of fault (a timeout by CPU and by wall time, a lost instance, an
// answer the rules punish, a memory error, an unencodable result, a crash in the bot's
// code and in the game module's), results that are not booleans, and the stats line.

// probeModule is a game module whose Handler answers with every kind of result and fault.
const probeModule = `
import sys
import pyclass
from pyclass import LostInstance, RulesAnswer

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
        if method == "loop":
            sys.stderr.write("loop: %s\n" % ("C" if pyclass._fast is not None else "Python"))
            return True
        if method == "bool":
            return bool(a[0] if type(a) is list else a)
        if method == "echo":
            return a
        if method == "value":
            return [1, -2, 3.5, "x\u00e9\"", None, {"k": [True, False]}, (1, 2), {1: 2}, 1e300 * 10 if game == 7 else 0.1]
        if method == "object":
            return object()
        if method == "nan":
            return float("nan")
        if method == "lost":
            raise LostInstance("no instance for game %d (process restarted)" % game)
        if method == "rules":
            raise RulesAnswer("trap at %d" % game)
        if method == "memory":
            raise MemoryError("refused")
        if method == "bot":
            return getattr(self.inst, a["m"] if type(a) is dict else "crash")(game)
        raise ValueError("unknown method %r" % method)
`

const probeBot = `
import time
class Probe(Player):
    def crash(self, game):
        return [1][game]
    def spin(self, game):
        while True:
            pass
    def sleep(self, game):
        time.sleep(5)
    def deep(self, game):
        def f(n):
            return f(n + 1)
        return f(0)
    def exit(self, game):
        raise SystemExit(3)
    def value(self, game):
        return {"game": game, "list": list(range(game))}
`

const fortyBot = `
import random
class Roller(Bot):
    def make_throw(self, scores, last_round):
        while sum(self.current_throws) < 15 and random.random() < 0.95:
            yield True
        yield False
class Broken(Bot):
    def make_throw(self, scores, last_round):
        yield True
        raise IndexError("oops")
class Nothing(Bot):
    def make_throw(self, scores, last_round):
        return 3
class Spinner(Bot):
    def make_throw(self, scores, last_round):
        while True:
            pass
        yield True
class Liar(Bot):
    def make_throw(self, scores, last_round):
        class B:
            def __bool__(self):
                raise MemoryError("no bool")
        yield B()
`

// packedLine is the packed request kothd writes for calls (pywire.go).
// call is one engine call, for the request lines below.
func call(g int, m string, a any) engine.Call { return engine.Call{Game: g, Method: m, Args: a} }

func packedLine(t *testing.T, cpu, wall float64, calls ...engine.Call) string {
	t.Helper()
	idx := make([]int, len(calls))
	for i := range idx {
		idx[i] = i
	}
	b, err := appendRequest(nil, &packer{}, cpu, wall, calls, idx)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"p":"`)) {
		t.Fatalf("not packed: %s", b)
	}
	return string(b)
}

// jsonLine is the general form of the same.
func jsonLine(t *testing.T, cpu, wall float64, calls ...engine.Call) string {
	t.Helper()
	idx := make([]int, len(calls))
	for i := range idx {
		idx[i] = i
	}
	b, err := appendRequest(nil, nil, cpu, wall, calls, idx)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// harnessOutput runs the harness in dir (module, hosting class) on the setup, with its
// stats timing one call in every, and lines, with the C loop installed or not, and returns
// its protocol output and its stderr.
func harnessOutput(t *testing.T, dir, module, class string, lines []string, fast bool, every int) (string, string) {
	t.Helper()
	cmd := harnessCmd(t, dir, module, fast)
	in := string(setup(class, 11, false, every)) + "\n" + strings.Join(lines, "\n") + "\n"
	cmd.Stdin = strings.NewReader(in)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("harness (fast %v): %v\n%s", fast, err, errb.String())
	}
	return out.String(), errb.String()
}

// harnessCmd is the harness's command in dir for module, with the C loop installed beside
// it (fast) or taken away, checked either way.
func harnessCmd(t *testing.T, dir, module string, fast bool) *exec.Cmd {
	t.Helper()
	cfg := PyConfig{Harness: module, Python: "/usr/bin/python3", PureHarness: !fast}
	if err := cfg.installBuilds(dir); err != nil {
		t.Fatal(err)
	}
	if have, _ := filepath.Glob(filepath.Join(dir, HarnessDir, fastPrefix+"*")); fast != (len(have) == 1) {
		t.Fatalf("fast %v: installed %v (%s)", fast, have, FastHarness(cfg.Python, false))
	}
	argv := cfg.argv()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	return cmd
}

// statsFigures masks the stats line's times, which differ from run to run (its shape, its
// count of calls and whether the bot's time is measured stay).
var statsFigures = regexp.MustCompile(`"(ready|cpu|calls|bot)":[0-9.e+-]+`)

// compareLoops runs the harness on lines under each loop, its stats timing every call and
// then one call in statsEvery (kothd bench's), and fails where the loops' outputs differ
// but for the stats' times. It returns the Python loop's output timing every call.
func compareLoops(t *testing.T, dir, module, class string, lines []string) string {
	t.Helper()
	out := compareLoopsTiming(t, dir, module, class, lines, 1)
	compareLoopsTiming(t, dir, module, class, lines, StatsEvery)
	return out
}

func compareLoopsTiming(t *testing.T, dir, module, class string, lines []string, every int) string {
	t.Helper()
	pure, pureErr := harnessOutput(t, dir, module, class, lines, false, every)
	fast, fastErr := harnessOutput(t, dir, module, class, lines, true, every)
	if pure != "" && !strings.Contains(pure, `"stats":`) {
		t.Fatalf("no stats line: %s", pure)
	}
	p, f := statsFigures.ReplaceAllString(pure, `"$1":0`), statsFigures.ReplaceAllString(fast, `"$1":0`)
	if p != f {
		pl, fl := strings.Split(p, "\n"), strings.Split(f, "\n")
		for i := 0; i < len(pl) && i < len(fl); i++ {
			if pl[i] != fl[i] {
				t.Errorf("%s (one call in %d timed): line %d differs:\nPython: %s\nC:      %s", class, every, i, pl[i], fl[i])
				break
			}
		}
		t.Fatalf("%s: the loops' outputs differ (%d and %d lines)", class, len(pl), len(fl))
	}
	if strings.Contains(pureErr, "loop: C") || strings.Contains(fastErr, "loop: Python") || strings.Contains(fastErr, "did not load") {
		t.Fatalf("the loops served were not the ones asked for:\nPython's stderr: %s\nC's stderr: %s", pureErr, fastErr)
	}
	return pure
}

func TestFastLoopRepliesAsPythonLoop(t *testing.T) {
	// Both loops are compared whatever the environment says (KOTHD_PYCLASS_FAST=off runs the
	// rest of the suite on the Python loop).
	t.Setenv(FastEnv, "")
	if FastHarness("/usr/bin/python3", false)[0] != 'C' {
		t.Fatalf("the C loop does not build on this host: %s", FastHarness("/usr/bin/python3", false))
	}
	t.Run("probe", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte(probeBot), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := InstallHarness(dir, "probe", []byte(probeModule)); err != nil {
			t.Fatal(err)
		}
		lines := []string{
			jsonLine(t, 1, 3, call(1, "loop", nil)),
			packedLine(t, 1, 3, call(1, "bool", intsArgs{1}), call(2, "bool", intsArgs{0}), call(3, "echo", intsArgs{4, -5, 2147483647}), call(4, "echo", nil)),
			packedLine(t, 1, 3, call(1, "bool", intsArgs{1}), call(2, "bool", intsArgs{0})),
			jsonLine(t, 1, 3, call(1, "value", nil), call(7, "value", nil), call(2, "object", nil), call(3, "nan", nil)),
			jsonLine(t, 0.5, 2, call(5, "lost", nil), call(6, "rules", nil), call(7, "memory", nil), call(8, "nope", nil)),
			jsonLine(t, 1, 3, call(1, "bot", map[string]string{"m": "crash"}), call(2, "bot", map[string]string{"m": "deep"}), call(3, "bot", map[string]string{"m": "exit"}), call(4, "bot", map[string]string{"m": "value"})),
			jsonLine(t, 0.05, 5, call(1, "bot", map[string]string{"m": "spin"}), call(2, "bool", true)),
			jsonLine(t, 0.05, 0.2, call(1, "bot", map[string]string{"m": "sleep"}), call(2, "bool", false)),
			jsonLine(t, 0, 0, call(1, "bool", true), call(2, "echo", "text")),
			`{"t":1,"w":3,"calls":[{"g":1,"m":"bool","a":true}]}`,
			`{"stats": true}`,
			`{"t":1e0,"w":3.0,"m":["bool"],"p":"AQAAAAAAAAABAAAAAQAAAA=="}`,
			`{"t":-0,"w":0,"m":["bool"],"p":"AQAAAAAAAAABAAAAAQAAAA=="}`,
			`{"t":1,"w":3,"m":["bool","echo"],"p":"AQAAAAEAAAD/////"}`,
		}
		out := compareLoops(t, dir, "probe", "Probe", lines)
		for _, want := range []string{`"lost":true`, `"rules":true`, `"f":"memory limit"`, `unencodable result`, `"wall":true`, `of CPU time`, `IndexError`, `RecursionError`, `SystemExit`, `{"b":"10"}`, `"n":`} {
			if !strings.Contains(out, want) {
				t.Errorf("the probe's replies lack %s:\n%s", want, out)
			}
		}
	})
	t.Run("forty", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte(fortyBot), 0o644); err != nil {
			t.Fatal(err)
		}
		h := forty.Descriptor.Harness
		if err := InstallHarness(dir, h.Module, h.Source); err != nil {
			t.Fatal(err)
		}
		var lines []string
		games := []int{1, 2, 3, 70000, -4}
		var news []engine.Call
		for i, g := range games {
			news = append(news, call(g, "new", intsArgs{int32(i % 4)}))
		}
		lines = append(lines, packedLine(t, 0.1, 2, news...))
		for turn := 0; turn < 6; turn++ {
			var starts []engine.Call
			for i, g := range games {
				starts = append(starts, call(g, "start", intsArgs{int32(turn % 2), 1, int32(1 + i), int32(10 * turn), 3, int32(40 - turn)}))
			}
			starts = append(starts, call(99, "start", intsArgs{0, 1, 2, 0}))
			lines = append(lines, packedLine(t, 0.1, 2, starts...))
			for k := 0; k < 8; k++ {
				var nexts []engine.Call
				for _, g := range games {
					nexts = append(nexts, call(g, "next", intsArgs{1, 2, 3, int32(k + 1)}))
				}
				lines = append(lines, packedLine(t, 0.1, 2, nexts...))
			}
			// The JSON form of the same methods (tools and tests send it), and odd packed
			// arguments that Handler.call reads.
			lines = append(lines, jsonLine(t, 0.1, 2,
				call(1, "start", map[string]any{"throws": []int{2}, "scores": []int{1, 2}, "last": true}),
				call(2, "next", map[string]any{"throws": []int{2, 3}})))
			lines = append(lines, packedLine(t, 0.1, 2, call(3, "start", intsArgs{0, -1, 5}), call(70000, "start", intsArgs{1, 9, 2}), call(-4, "next", nil)))
		}
		lines = append(lines, packedLine(t, 0.1, 2, call(1, "end", nil), call(2, "end", nil), call(3, "next", intsArgs{1}), call(1, "next", intsArgs{1})))
		lines = append(lines, packedLine(t, 0.1, 2, call(3, "bogus", intsArgs{1})), `{"stats":true}`)
		for _, class := range []string{"Roller", "Broken", "Nothing", "Liar", "Spinner", "GoToTenBot"} {
			out := compareLoops(t, dir, h.Module, class, lines)
			if class == "Roller" && (!strings.Contains(out, `{"b":"1`) || !strings.Contains(out, `"lost":true`)) {
				t.Errorf("Roller's replies: %s", out)
			}
		}
	})
}

// The stats the C loop keeps are the ones kothd bench reads: every call counted, the time
// inside calls and the bot's own time measured (forty's hot path in C adds to bot_time as
// Handler.timed_call does).
func TestFastLoopStats(t *testing.T) {
	t.Setenv(FastEnv, "")
	dir := pyAnswer(t, fortyBot)
	lines := []string{packedLine(t, 1, 3, call(1, "new", intsArgs{0}))}
	for i := 0; i < 50; i++ {
		lines = append(lines, packedLine(t, 1, 3, call(1, "start", intsArgs{0, 1, 3, 0, 0}), call(2, "next", intsArgs{1})))
	}
	lines = append(lines, `{"stats":true}`)
	out, _ := harnessOutput(t, dir, "forty", "Roller", lines, true, 1)
	last := out[strings.LastIndex(strings.TrimSpace(out), "\n")+1:]
	ht, ok := parseStats([]byte(strings.TrimSpace(last)))
	if !ok {
		t.Fatalf("stats line: %q", last)
	}
	if ht.Calls != 101 || ht.BotTimed != 1 || !(ht.Bot > 0) || !(ht.InCalls >= ht.Bot) || !(ht.CPU > ht.Ready) {
		t.Fatalf("stats %+v", ht)
	}
}

// Without a C compiler the harness serves in Python: FastHarness says so and why, no
// extension is installed, and the bot plays. (Another name of the interpreter, so that
// this process's build for /usr/bin/python3 is not the one found.)
func TestFastLoopFallsBackWithoutCompiler(t *testing.T) {
	const python = "/usr/bin/python3.11"
	if _, err := os.Stat(python); err != nil {
		t.Skip(err)
	}
	t.Setenv(FastEnv, "")
	dir := pyAnswer(t, fortyBot)
	if err := (PyConfig{Python: "/usr/bin/python3"}).installBuilds(dir); err != nil { // a stale build to take away
		t.Fatal(err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, HarnessDir, fastPrefix+"*")); len(m) != 1 {
		t.Fatalf("no build of /usr/bin/python3's installed: %v", m)
	}
	t.Setenv("CC", "/nonexistent/cc")
	// An empty cache (a build found there needs no compiler), and this process's memory of
	// the interpreter's build forgotten.
	fast.Lock()
	cache := fast.cache
	fast.cache = t.TempDir()
	delete(fast.exts, python)
	fast.Unlock()
	t.Cleanup(func() {
		fast.Lock()
		fast.cache = cache
		delete(fast.exts, python)
		fast.Unlock()
	})
	if loop := FastHarness(python, false); !strings.HasPrefix(loop, "Python (no C compiler") {
		t.Fatalf("loop without a compiler: %s", loop)
	}
	cfg := fortyConfig(time.Second)
	cfg.Python = python
	pool := NewPyPool(sandbox.Unsandboxed{}, cfg, []engine.Bot{{Entrant: engine.Entrant{Name: "Roller"}, Dir: dir}})
	defer pool.Close()
	if r := pool.Exchange(t.Context(), []engine.Call{newCall(1), startCall(1)}); r[0].Fault != nil || r[1].Fault != nil {
		t.Fatalf("replies %+v", r)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, HarnessDir, fastPrefix+"*")); len(m) != 0 {
		t.Fatalf("an extension is installed without a build: %v", m)
	}
}
