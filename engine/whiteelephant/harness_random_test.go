package whiteelephant

import (
	"strings"
	"testing"
)

// A game's draws from the random module do not depend on the games the process serves
// beside it: ending another game (whose instance's finaliser draws, say to log a random
// id) leaves this game's stream as it was.
func TestEndingAGameLeavesOthersDraws(t *testing.T) {
	out := runPython(t, `
import sys, random
sys.path.insert(0, ".")
import pyclass
sys.modules.setdefault("pyclass", pyclass)
import whiteelephant as we
class B(we.WhiteElephantBot):
    def take_turn(self, players, presents, just_stole):
        return None
    def __del__(self):
        random.random()
def draw(end_other):
    h = we.Handler(B)
    h.call(1, "seed", {"seed": 11}); h.call(2, "seed", {"seed": 22})
    for g in (1, 2):
        h.call(g, "turn", {"n": "B", "p": [], "t": []})
    if end_other:
        h.call(1, "end", {})
    h.random.use(2)
    return random.random()
print(draw(False), draw(True))
`, "")
	f := strings.Fields(out)
	if len(f) != 2 || f[0] != f[1] {
		t.Fatalf("game 2's next draw alone and after game 1 ended: %q", out)
	}
}
