package pyclass

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/engine/forty"
	"github.com/kothd/kothd/runner/sandbox"
	"github.com/kothd/kothd/runner/sandbox/sandboxtest"
)

// The C loop's state (pyfast.go, harness/_pyclassfast.c) is in the bot's process, within
// its reach: the module through the harness's globals, gc or a second import of its file,
// its functions callable. What a bot does with it must hurt itself only: its own calls
// fault or its process ends, and the other bots play as they would beside a bot that merely
// crashes. Real processes in the real bwrap sandbox, a forty tournament.

// hostileFast are answers that turn the C loop's functions against the harness on each
// turn, then raise (a bot that plays on after such a move would play its own game, which
// is not what is tested); in the Python loop (no C loop to find) they just raise.
const hostileFast = `
import gc, sys, os, time
import pyclass

def _ext():
    for o in gc.get_objects():
        if type(o) is type(sys) and getattr(o, "__name__", "") == "_pyclassfast":
            return o
    return pyclass._fast

def _imported():
    # A second import of the extension by its file: the same library, the same state.
    sys.path.insert(0, os.path.join(os.getcwd(), ".harness"))
    try:
        import _pyclassfast
        return _pyclassfast
    except ImportError:
        return None
    finally:
        sys.path.pop(0)

class Unbounded(Bot):
    def make_throw(self, scores, last_round):
        e = _ext()
        if e is not None:
            e.untimed_enter()  # the CPU limit no longer interrupts its calls
            t = time.process_time()
            while time.process_time() - t < 0.3:
                pass
        raise RuntimeError("unbounded")
        yield True

class Flagger(Bot):
    def make_throw(self, scores, last_round):
        e = _ext()
        if e is not None:
            e.untimed_exit(0.0, 0.0)
            e.on_alarm(14, None)
            e.on_prof(27, None)
        raise RuntimeError("flagger")
        yield True

class Reserve(Bot):
    def make_throw(self, scores, last_round):
        e = _ext()
        if e is not None:
            e.serve(in_fd=0, out_fd=2, call=print, timed=print, request=print, fault=print, reply=print, globals={},
                    measure=0, handler=None, fast=None, sched_fd=-1, timeout=KeyError)
        raise RuntimeError("reserve")
        yield True

class Reader(Bot):
    def make_throw(self, scores, last_round):
        e = _imported()
        if e is not None:
            e.readline(0)
            e.readline(3)
        raise RuntimeError("reader")
        yield True
`

// smasher writes over the C loop's module object with ctypes: its process dies.
const smasher = `
import ctypes, sys, gc
import pyclass

class Smasher(Bot):
    def make_throw(self, scores, last_round):
        e = pyclass._fast
        if e is not None:
            ctypes.memset(id(e), 0xff, 64)
            e.serve()
        raise RuntimeError("smasher")
        yield True
`

const plainBots = `
class Twenty(Bot):
    def make_throw(self, scores, last_round):
        while sum(self.current_throws) < 20:
            yield True
        yield False

class Three(Bot):
    def make_throw(self, scores, last_round):
        for _ in range(3):
            yield True
        yield False
`

func TestFastLoopIsNoLever(t *testing.T) {
	if testing.Short() {
		t.Skip("plays forty tournaments with real processes")
	}
	sb := sandboxtest.NeedBwrap(t)
	t.Setenv(FastEnv, "") // the C loop is what is tested, whatever the environment says
	if loop := FastHarness("/usr/bin/python3", false); !strings.HasPrefix(loop, "C") {
		t.Fatalf("the C loop does not build on this host: %s", loop)
	}
	answer := func(src string, classes ...string) []engine.Bot {
		dir := pyAnswer(t, src)
		var out []engine.Bot
		for _, c := range classes {
			out = append(out, engine.Bot{Entrant: engine.Entrant{Name: c, Seed: engine.SubSeed(3, c)}, Dir: dir})
		}
		return out
	}
	plain := answer(plainBots, "Twenty", "Three")
	hostile := answer(hostileFast, "Unbounded", "Flagger", "Reserve", "Reader")
	smash := answer(smasher, "Smasher")
	play := func(bots []engine.Bot, pure bool) (*forty.Tally, *PyPool) {
		cfg := fortyConfig(250 * time.Millisecond)
		cfg.PureHarness, cfg.FaultStreak = pure, 4
		pool := NewPyPool(sandbox.Sandbox(sb), cfg, bots)
		t.Cleanup(pool.Close)
		var ents []engine.Entrant
		for _, b := range bots {
			ents = append(ents, engine.Entrant{Name: b.Name})
		}
		tally, err := forty.Run(context.Background(), pool, ents, forty.Options{Games: 60, Seed: 5, Concurrency: 6})
		if err != nil {
			t.Fatal(err)
		}
		if tally.Games != 60 || tally.Voided != 0 {
			t.Fatalf("games %d voided %d", tally.Games, tally.Voided)
		}
		return tally, pool
	}
	field := append(append([]engine.Bot{}, plain...), hostile...)
	fast, fpool := play(field, false)
	if m, _ := filepath.Glob(filepath.Join(hostile[0].Dir, HarnessDir, fastPrefix+"*")); len(m) != 1 {
		t.Fatalf("the C loop was not installed: %v", m)
	}
	pure, _ := play(field, true)
	for i, b := range field {
		f := fast.Bots[i]
		if i < len(plain) {
			if f.Errors != 0 || fpool.Stats(i).Faults() != 0 {
				t.Errorf("%s, a plain bot, faulted: %+v", b.Name, f)
			}
		} else if f.Errors == 0 {
			t.Errorf("%s played the C loop's functions without a fault: %+v", b.Name, f)
		}
	}
	// The hostile bots reached the C loop and were refused.
	for i, want := range map[int]string{len(plain) + 2: "the harness is serving already", len(plain) + 3: "the harness is serving"} {
		if f := fpool.Stats(i).First(); f == nil || !strings.Contains(f.Detail, want) {
			t.Errorf("%s's first fault %+v, want %q", field[i].Name, f, want)
		}
	}
	// The plain bots play as beside bots that just raise (the Python loop: no C loop to
	// turn against it).
	if !reflect.DeepEqual(fast.Bots[:len(plain)], pure.Bots[:len(plain)]) {
		t.Errorf("the plain bots' rows differ beside the hostile bots (C loop) and beside raisers (Python loop):\n%+v\n%+v", fast.Bots[:len(plain)], pure.Bots[:len(plain)])
	}

	// A bot that writes over the loop's memory ends its own process, and nothing else.
	withSmasher := append(append([]engine.Bot{}, plain...), smash...)
	st, spool := play(withSmasher, false)
	for i := range plain {
		if st.Bots[i].Errors != 0 || spool.Stats(i).Faults() != 0 {
			t.Errorf("%s, a plain bot, faulted beside the smasher: %+v", plain[i].Name, st.Bots[i])
		}
	}
	if st.Bots[len(plain)].Errors == 0 {
		t.Errorf("the smasher did not fault: %+v", st.Bots[len(plain)])
	}
	if f := spool.Stats(len(plain)).First(); f == nil || f.Outcome != engine.Crash || strings.Contains(f.Detail, "smasher") {
		t.Errorf("the smasher's first fault %+v, want its process's death", f)
	} else {
		t.Logf("the smasher's first fault: %s", f.Detail)
	}
}
