package pyclass

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/runner/sandbox"

	"github.com/kothd/kothd/engine"
)

// The harness ends without the interpreter's teardown of every object (pyclass.py's _end),
// but what a bot can see of an exit still happens, C loop and Python loop alike: its exit
// handlers run, a non-daemon thread it started is waited for, and what it left unflushed
// on stdout (its own, the protocol's being private) is written, within the grace Close gives.
func TestHarnessEndRunsExitHandlers(t *testing.T) {
	for _, pure := range []bool{false, true} {
		t.Run(map[bool]string{false: "C loop", true: "Python loop"}[pure], func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(t.TempDir(), "out")
			bot := `
import atexit, threading, time, sys
def bye():
    with open(OUT, "a") as f:
        f.write("atexit\n")
atexit.register(bye)
def late():
    time.sleep(0.05)
    with open(OUT, "a") as f:
        f.write("thread\n")
class Leaving(Bot):
    def make_throw(self, scores, last_round):
        threading.Thread(target=late).start()
        yield False
`
			bot = strings.Replace(bot, "OUT", "'"+out+"'", 2)
			if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte(bot), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := InstallTestHarness(dir); err != nil {
				t.Fatal(err)
			}
			cfg := PyConfig{Harness: "forty", Python: "/usr/bin/python3", CallTimeout: 5 * time.Second, StartTimeout: 20 * time.Second, MaxRestarts: 1, PureHarness: pure}
			pool := NewPyPool(sandbox.Unsandboxed{}, cfg, []engine.Bot{{Entrant: engine.Entrant{Name: "Leaving"}, Dir: dir}})
			calls := []engine.Call{
				{Bot: 0, Game: 1, Method: "new", Args: map[string]int{"seat": 0}},
				{Bot: 0, Game: 1, Method: "start", Args: map[string]any{"throws": []int{3}, "scores": []int{0}, "last": false}},
			}
			for _, r := range pool.Exchange(context.Background(), calls) {
				if r.Fault != nil {
					t.Fatalf("fault: %+v", r.Fault)
				}
			}
			pool.Close()
			var got string
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				b, _ := os.ReadFile(out)
				if got = string(b); got == "thread\natexit\n" {
					return
				}
			}
			t.Fatalf("the bot's exit left %q, want the thread's line then the exit handler's", got)
		})
	}
}
