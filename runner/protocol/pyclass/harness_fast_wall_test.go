package pyclass

import (
	"strings"
	"testing"

	"github.com/kothd/kothd/engine/forty"
)

// slowTruthBot yields throws whose truth takes wall time (a __bool__ that sleeps): that is
// the call's time, as bool(v) is inside Handler.call, and the next call starts when it
// has ended.
const slowTruthBot = `
import time

class Slow:
    def __bool__(self):
        time.sleep(0.7)
        return True

class SlowTruth(Bot):
    def make_throw(self, scores, last_round):
        while True:
            yield Slow()
`

// Under the C loop's forty dispatch (timed: the runner asks for stats), a call's end was
// its bot-time window's end, before the truth of what the bot yielded was taken: the time
// a __bool__ took was charged to the next call's wall time, which then timed out after
// less than its limit of its own.
func TestFastLoopWallTimeOfTheTruthIsTheCalls(t *testing.T) {
	t.Setenv(FastEnv, "")
	dir := pyAnswer(t, slowTruthBot) // forty's harness
	h := forty.Descriptor.Harness
	lines := []string{
		packedLine(t, 1, 1, call(1, "new", intsArgs{0})),
		packedLine(t, 1, 1, call(1, "start", intsArgs{0, 1, 3, 0, 0}), call(1, "next", intsArgs{2})),
		`{"stats":true}`,
	}
	out := compareLoops(t, dir, h.Module, "SlowTruth", lines)
	if !strings.Contains(out, `{"b":"11"}`) {
		t.Fatalf("replies: %s", out)
	}
}
