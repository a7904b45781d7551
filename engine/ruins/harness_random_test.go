package ruins

import (
	"strings"
	"testing"

	"github.com/kothd/kothd/runner/protocol/pyclass/pyclasstest"
)

// As forty's TestEndingAGameLeavesOthersDraws: ending one seat (whose adventurer's
// finaliser draws from the module) must leave another seat's stream as it was. ruins' "end"
// lets the seat go under its own stream, not whichever was current (found in review).
func TestEndingASeatLeavesOthersDraws(t *testing.T) {
	out := pyclasstest.Run(t, Descriptor.Harness, `
import random
import ruins
class B(ruins.Adventurer):
    def get_action(self, state):
        return "next"
    def __del__(self):
        random.random()
def draw(end_other):
    h = ruins.Handler(B)
    h.call(1, "new", {"s": 0, "seed": "11", "name": "a"})
    h.call(2, "new", {"s": 0, "seed": "22", "name": "b"})
    if end_other:
        h.call(1, "end", {"s": 0})
    pyclass.ModuleRandom.current[0] = h.games[(2, 0)].stream
    return random.random()
print(draw(False), draw(True))
`)
	if f := strings.Fields(out); len(f) != 2 || f[0] != f[1] {
		t.Fatalf("seat (2,0)'s next draw alone and after seat (1,0) ended: %q", out)
	}
}
