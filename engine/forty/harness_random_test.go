package forty

import (
	"strings"
	"testing"

	"github.com/kothd/kothd/runner/protocol/pyclass/pyclasstest"
)

// A game's draws from the random module do not depend on the games the process serves
// beside it: ending another game (whose instance's finaliser draws) leaves this game's
// stream as it was.
func TestEndingAGameLeavesOthersDraws(t *testing.T) {
	out := pyclasstest.Run(t, Descriptor.Harness, `
import random
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
	if f := strings.Fields(out); len(f) != 2 || f[0] != f[1] {
		t.Fatalf("game 2's next draw alone and after game 1 ended: %q", out)
	}
}
