package pyclass

import (
	"os"
	"path/filepath"
	"testing"
)

// dropperBot lets go of every reference it can reach to the functions the harness serves
// with (the arguments of the C loop's call, found through gc, and the harness's globals that
// name them; the Python loop's are its frame's locals) and fills the
// memory they held, then plays on: the loop must hold its own references to them.
const dropperBot = `
import gc, sys

class Dropper(Player):
    def crash(self, game):
        main = sys.modules["__main__"]
        served = getattr(main, "_serving", None)
        if type(served) is dict and served:  # the C loop's: serve's keyword arguments, and their copy
            for o in gc.get_objects():
                if type(o) is dict and o is not served and set(o) == set(served):
                    o.clear()
            served.clear()
            for name in ("_reply", "_fault_reply"):
                delattr(main, name)
        gc.collect()
        junk = [[i, str(i)] for i in range(200000)]
        return [1][game]
`

func TestFastLoopHoldsItsArguments(t *testing.T) {
	t.Setenv(FastEnv, "")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte(dropperBot), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := InstallHarness(dir, "probe", []byte(probeModule)); err != nil {
		t.Fatal(err)
	}
	lines := []string{
		packedLine(t, 1, 3, call(1, "bool", intsArgs{1})),
		jsonLine(t, 1, 3, call(0, "bot", map[string]string{"m": "crash"})),
		packedLine(t, 1, 3, call(1, "bool", intsArgs{1}), call(3, "echo", intsArgs{4})),
		jsonLine(t, 1, 3, call(5, "bot", map[string]string{"m": "crash"}), call(2, "value", nil)),
		`{"stats":true}`,
	}
	compareLoops(t, dir, "probe", "Dropper", lines)
}
