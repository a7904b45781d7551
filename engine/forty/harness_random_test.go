package forty

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kothd/kothd/protocol/pyclass"
)

// A game's draws from the random module do not depend on the games the process serves
// beside it: ending another game (whose instance's finaliser draws) leaves this game's
// stream as it was.
func TestEndingAGameLeavesOthersDraws(t *testing.T) {
	dir := t.TempDir()
	if err := pyclass.InstallHarness(dir, Descriptor.Harness.Module, Descriptor.Harness.Source); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/usr/bin/python3", "-c", `
import sys, random
sys.path.insert(0, ".")
import pyclass
sys.modules.setdefault("pyclass", pyclass)
import forty
class B(forty.Bot):
    def __del__(self):
        random.random()
def draw(end_other):
    h = forty.Handler(B)
    h.call(1, "new", {"seat": 0})
    h.call(2, "new", {"seat": 1})
    if end_other:
        h.call(1, "end", None)
    pyclass.ModuleRandom.current[0] = h.games[2]
    return random.random()
print(draw(False), draw(True))
`)
	cmd.Dir = filepath.Join(dir, pyclass.HarnessDir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	if f := strings.Fields(string(out)); len(f) != 2 || f[0] != f[1] {
		t.Fatalf("game 2's next draw alone and after game 1 ended: %q", out)
	}
}
