package pyclass

import (
	"strings"
	"testing"

	"github.com/kothd/kothd/engine"
)

// Validation refuses only a bot that cannot play: every one of at least minDecisions
// decisions faulted in a way the rules do not answer. An invalid move the rules answer
// (Ruled) is play; fewer faulted decisions than minDecisions say too little.
func TestVerdictCountsPlay(t *testing.T) {
	crash := &engine.Fault{Outcome: engine.Crash, Detail: "ValueError"}
	ruled := &engine.Fault{Outcome: engine.Crash, Detail: "InvalidAction: Non-integer treasure index '5'", Ruled: true}
	in := func() string { return "act {}" }
	for _, c := range []struct {
		name   string
		faults []*engine.Fault
		refuse bool
	}{
		{"every decision an invalid move the rules answer", []*engine.Fault{ruled, ruled, ruled}, false},
		{"one invalid move, then crashes", []*engine.Fault{crash, ruled, crash, crash}, false},
		{"every decision crashes", []*engine.Fault{crash, crash, crash}, true},
		{"too few decisions to say", []*engine.Fault{crash, crash}, false},
		{"one good answer", []*engine.Fault{crash, crash, crash, nil}, false},
	} {
		var d decisions
		for _, f := range c.faults {
			d.note(f, in)
		}
		err := d.verdict()
		if (err != nil) != c.refuse {
			t.Errorf("%s: verdict %v, want refused %v", c.name, err, c.refuse)
		}
		if err != nil && !strings.Contains(err.Error(), "faulted on every one of its 3 decisions") {
			t.Errorf("%s: reason %q", c.name, err)
		}
	}
}
