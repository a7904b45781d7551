package pyclass

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kothd/kothd/engine"
)

// tickModule's Handler calls the bot's method named by the call.
const tickModule = `
class Player:
    pass

def namespace():
    return {"Player": Player}

def competitors(ns, names_before):
    return [v for k, v in ns.items() if k not in names_before and isinstance(v, type) and issubclass(v, Player)]

class Handler:
    def __init__(self, cls):
        self.inst = cls()

    def call(self, game, method, a):
        return getattr(self.inst, method)()
`

// tickBot's burn starts a thread that uses CPU after the call has returned, while the
// harness waits for the next batch, then says so on stderr.
const tickBot = `
import sys, threading, time

class Burner(Player):
    def burn(self):
        def spin():
            t = time.thread_time()
            while time.thread_time() - t < 0.4:
                pass
            sys.stderr.write("burnt\n")
            sys.stderr.flush()
        threading.Thread(target=spin).start()
        return True

    def ok(self):
        return True
`

// harnessSession starts the harness in dir (the C loop installed or not) and returns its
// input, its protocol output and its stderr, line by line.
func harnessSession(t *testing.T, dir, module, class string, fast bool) (io.Writer, *bufio.Reader, *bufio.Reader) {
	t.Helper()
	cmd := harnessCmd(t, dir, module, fast)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errp, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	if _, err := io.WriteString(in, string(setup(class, 11, false, 1))+"\n"); err != nil {
		t.Fatal(err)
	}
	return in, bufio.NewReader(out), bufio.NewReader(errp)
}

func readLine(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	l, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("read: %v (%q)", err, l)
	}
	return strings.TrimSpace(l)
}

// CPU the process uses while the harness waits between batches (a thread the bot left
// running) is not the next call's: the Python loop's handler of the ticks that came in
// the meantime runs in the harness's own code, outside a call, and the C loop must run it
// there too. The ticks go to the thread that was running (the kernel's choice), not the
// one blocked reading the next batch, so they wait for the serving thread's next Python
// code: in the C loop (before the fix) that was the next call's, which the first tick's
// handler then stopped for the CPU the thread had used before it began.
func TestFastLoopTicksBetweenBatchesAreNotTheNextCalls(t *testing.T) {
	t.Setenv(FastEnv, "")
	for _, fast := range []bool{false, true} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte(tickBot), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := InstallHarness(dir, "tick", []byte(tickModule)); err != nil {
			t.Fatal(err)
		}
		in, out, errs := harnessSession(t, dir, "tick", "Burner", fast)
		if l := readLine(t, out); !strings.Contains(l, `"ready":true`) {
			t.Fatalf("setup: %s", l)
		}
		c := func(g int, m string) engine.Call { return engine.Call{Game: g, Method: m, Args: intsArgs{0}} }
		io.WriteString(in, packedLine(t, 0.05, 30, c(1, "burn"))+"\n")
		if l := readLine(t, out); l != `{"b":"1"}` {
			t.Fatalf("fast %v: burn: %s", fast, l)
		}
		for readLine(t, errs) != "burnt" {
		}
		io.WriteString(in, packedLine(t, 0.05, 30, c(1, "ok"), c(2, "ok"))+"\n")
		if l := readLine(t, out); l != `{"b":"11"}` {
			t.Errorf("fast %v: the calls after the thread's CPU: %s", fast, l)
		}
	}
}
