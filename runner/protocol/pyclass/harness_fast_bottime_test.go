package pyclass

import (
	"strings"
	"testing"

	"github.com/kothd/kothd/engine/forty"
)

// meddlerBot replaces the harness's bot_time[0] (within its reach: pyclass.bot_time) from
// its own update_state, inside forty's timed window: with a value that does not add to a
// float (7), one whose __add__ lets go of the list's only reference to itself and declines
// (9), and a float again (8).
const meddlerBot = `
import pyclass

class Evil:
    def __add__(self, other):
        pyclass.bot_time[0] = 0.0  # from here the object lives only as long as its caller holds it
        return NotImplemented

class Meddler(Bot):
    def update_state(self, current_throws):
        self.current_throws = current_throws
        if current_throws and current_throws[0] == 7:
            pyclass.bot_time[0] = object()
        if current_throws and current_throws[0] == 9:
            pyclass.bot_time[0] = Evil()
        if current_throws and current_throws[0] == 8:
            pyclass.bot_time[0] = 0.0

    def make_throw(self, scores, last_round):
        while True:
            yield True
`

// Forty's timed hot path in C adds the bot's time to bot_time[0] as Handler.timed_call's
// "_bot_time[0] += ..." does: the same fault when the item does not add (an in-place
// add's message), and the item held while its __add__ runs (a borrowed reference to an
// object its own method may free was read again after it returned).
func TestFastLoopBotTimeAsTimedCall(t *testing.T) {
	t.Setenv(FastEnv, "")
	dir := pyAnswer(t, meddlerBot) // forty's harness
	h := forty.Descriptor.Harness
	lines := []string{
		packedLine(t, 1, 3, call(1, "new", intsArgs{0})),
		packedLine(t, 1, 3, call(1, "start", intsArgs{0, 1, 3, 0, 0})),
		packedLine(t, 1, 3, call(1, "next", intsArgs{7}), call(1, "next", intsArgs{8}), call(1, "next", intsArgs{1})),
		packedLine(t, 1, 3, call(1, "next", intsArgs{9}), call(1, "next", intsArgs{8}), call(1, "next", intsArgs{1})),
		packedLine(t, 1, 3, call(1, "start", intsArgs{0, 1, 9, 0, 0}), call(1, "next", intsArgs{8})),
		`{"stats":true}`,
	}
	out := compareLoops(t, dir, h.Module, "Meddler", lines)
	for _, want := range []string{"for +=: 'object' and 'float'", "for +=: 'Evil' and 'float'"} {
		if !strings.Contains(out, want) {
			t.Errorf("replies lack %q:\n%s", want, out)
		}
	}
}
