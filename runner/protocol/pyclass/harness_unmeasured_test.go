package pyclass

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// emptierBot empties the harness's bot_time list (pyclass.bot_time, within its reach).
const emptierBot = `
import pyclass

class Emptier(Bot):
    def make_throw(self, scores, last_round):
        del pyclass.bot_time[:]
        yield True
        yield False
`

// Unmeasured (the runner asks for no stats: its usual runs), neither loop reads the bot
// time: a bot that empties its list plays on under both. The Python loop read bot_time[0]
// at every batch's start, measured or not, and so ended its process at the next batch
// (an IndexError in the harness's own code) where the C loop played on.
func TestUnmeasuredLoopsLeaveBotTimeAlone(t *testing.T) {
	t.Setenv(FastEnv, "")
	dir := pyAnswer(t, emptierBot)
	lines := []string{
		packedLine(t, 1, 3, call(1, "new", intsArgs{0})),
		packedLine(t, 1, 3, call(1, "start", intsArgs{0, 1, 3, 0, 0})),
		packedLine(t, 1, 3, call(1, "next", intsArgs{3})),
		packedLine(t, 1, 3, call(1, "next", intsArgs{3})),
	}
	var outs [2]string
	for i, fast := range []bool{false, true} {
		cfg := PyConfig{Harness: "forty", Python: "/usr/bin/python3", PureHarness: !fast}
		if err := cfg.installBuilds(dir); err != nil {
			t.Fatal(err)
		}
		argv := cfg.argv()
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(string(setup("Emptier", 11, false, 0)) + "\n" + strings.Join(lines, "\n") + "\n")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("harness (fast %v): %v\n%s", fast, err, errb.String())
		}
		outs[i] = out.String()
	}
	if outs[0] != outs[1] || !strings.HasSuffix(outs[1], "{\"b\":\"1\"}\n{\"b\":\"0\"}\n{\"b\":\"0\"}\n") {
		t.Fatalf("Python loop:\n%s\nC loop:\n%s", outs[0], outs[1])
	}
}
