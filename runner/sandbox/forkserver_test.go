package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
)

// observeBot prints, as JSON, everything of its start a Python bot can look at: what the
// fork server must give it exactly as a fresh interpreter would.
const observeBot = `import json, os, sys
obs = {
    "argv": sys.argv, "orig_argv": sys.orig_argv, "path": sys.path, "cwd": os.getcwd(),
    "env": sorted(os.environ.items()), "modules": sorted(sys.modules),
    "main": sorted(globals()), "file": __file__, "name": __name__, "spec": repr(__spec__),
    "cached": repr(__cached__), "loader": type(__loader__).__name__ + ":" + getattr(__loader__, "path", ""),
    "executable": sys.executable, "flags": repr(sys.flags), "stdin": sys.stdin.read(),
    "fds": sorted(os.listdir("/proc/self/fd")), "session_leader": os.getsid(0) == os.getpid(),
    "group_leader": os.getpgrp() == os.getpid(), "pid_ns_view": sorted(p for p in os.listdir("/proc") if p.isdigit()) != [],
    "umask": os.umask(0o22), "stdout_tty": sys.stdout.isatty(), "stdin_seekable": sys.stdin.seekable(),
    "stdout_enc": sys.stdout.encoding, "stdout_line": sys.stdout.line_buffering,
    "recursion": sys.getrecursionlimit(),
    "status": [l for l in open("/proc/self/status").read().splitlines() if l.split(":")[0] in ("Umask", "Seccomp", "Seccomp_filters", "NoNewPrivs", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "SigIgn", "SigBlk", "SigCgt", "Cpus_allowed_list")],
}
import gc, resource, signal
obs["gc"] = [gc.isenabled(), gc.get_freeze_count(), gc.get_threshold()]
obs["signals"] = [repr(signal.getsignal(s)) for s in range(1, signal.NSIG) if s not in (signal.SIGKILL, signal.SIGSTOP)]
obs["blocked"] = sorted(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, []))
obs["rlimits"] = [resource.getrlimit(getattr(resource, n)) for n in dir(resource) if n.startswith("RLIMIT_")]
import random
obs["random"] = random.random()
print(json.dumps(obs))
`

// forkPair returns a launcher with the fork server and one without, for the same bot.
func forkPair(t *testing.T, sb Sandbox, src string) (forked, plain *Launcher) {
	return forkPairRun(t, sb, src, "")
}

// runScripts are the `run` scripts the fork server serves: the one dirfiles.Prepare
// writes for a Python 3 answer, and the same as an answer writes it (Mafia's Sheriff),
// the interpreter found through PATH.
var runScripts = []string{"#!/bin/sh\nexec '/usr/bin/python3' 'bot.py'\n", "#!/bin/sh\nexec python3 bot.py\n"}

// forkPairRun is forkPair; with run, the bot's command is ./run, the script the dirfiles
// protocol writes for a Python 3 answer (Mafia, dirfiles.Prepare's shellJoin), with that
// protocol's PATH.
func forkPairRun(t *testing.T, sb Sandbox, src string, run string) (forked, plain *Launcher) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := ProcSpec{Dir: dir, Argv: []string{"/usr/bin/python3", "bot.py"}}
	if run != "" {
		if err := os.WriteFile(filepath.Join(dir, "run"), []byte(run), 0o755); err != nil {
			t.Fatal(err)
		}
		spec.Argv = []string{"./run"}
		spec.Env = []string{"PATH=/usr/bin:/bin"}
	}
	forked = newTestLauncher(t, sb, spec)
	plain = newTestLauncher(t, sb, spec)
	plain.noForks = true
	return forked, plain
}

// The differential test: a bot that prints what it can observe of its start sees the
// same launched plainly and through the fork server, but for the documented differences
// (docs/trust.md): none of those it prints here.
func TestForkServerSameAsPlainLaunch(t *testing.T) {
	for name, sb := range launcherSandboxes(t) {
		for i, run := range append([]string{""}, runScripts...) {
			sub := name
			if run != "" {
				sub += fmt.Sprintf("/run%d", i)
			}
			t.Run(sub, func(t *testing.T) { testForkServerSame(t, sb, run) })
		}
	}
}

func testForkServerSame(t *testing.T, sb Sandbox, run string) {
	{
		{
			forked, plain := forkPairRun(t, sb, observeBot, run)
			var draws []float64
			for i := range 3 {
				job := Job{Args: []string{"7", "a b", ""}, Stdin: []byte("hello\n"), Timeout: 10 * time.Second}
				if i == 1 {
					job.Stdin = nil
				}
				f := forked.Launch(context.Background(), job)
				p := plain.Launch(context.Background(), job)
				if f.Fault != nil || p.Fault != nil || !f.Forked || p.Forked {
					t.Fatalf("decision %d: forked %+v; plain %+v", i, f, p)
				}
				var fo, po map[string]any
				if err := json.Unmarshal([]byte(f.Stdout), &fo); err != nil {
					t.Fatalf("forked: %v: %q", err, f.Stdout)
				}
				if err := json.Unmarshal([]byte(p.Stdout), &po); err != nil {
					t.Fatalf("plain: %v: %q", err, p.Stdout)
				}
				draws = append(draws, fo["random"].(float64))
				delete(fo, "random")
				delete(po, "random")
				for k := range po {
					if !reflect.DeepEqual(fo[k], po[k]) {
						t.Errorf("decision %d: %s: forked %v, plain %v", i, k, fo[k], po[k])
					}
				}
				if len(fo) != len(po) {
					t.Errorf("decision %d: forked printed %d keys, plain %d", i, len(fo), len(po))
				}
			}
			if draws[0] == draws[1] || draws[1] == draws[2] {
				t.Fatalf("random's first draws repeat across forked decisions: %v", draws)
			}
		}
	}
}

// How a decision ends (exit status, signal, uncaught exception and its traceback, exit
// handlers, threads still running, a script that cannot be read) is the same both ways.
func TestForkServerSameEnds(t *testing.T) {
	bots := map[string]string{
		"exit3":     "import sys\nprint('x')\nsys.exit(3)\n",
		"exitmsg":   "import sys\nsys.exit('bye')\n",
		"raise":     "def f():\n    raise ValueError('no')\nprint('partial', end='')\nf()\n",
		"syntax":    "print('x'\n",
		"kill":      "import os\nprint('a', flush=True)\nos.kill(os.getpid(), 9)\n",
		"interrupt": "raise KeyboardInterrupt\n",
		"atexit":    "import atexit\natexit.register(lambda: print('at exit'))\nprint('main')\n",
		"thread":    "import threading, time\ndef late():\n    time.sleep(0.2)\n    print('late', flush=True)\nthreading.Thread(target=late).start()\nprint('main')\n",
		"unflushed": "import sys\nsys.stdout.write('no newline')\n",
		"gone":      "import os\nos.rename('bot.py', 'moved.py')\n",
		// A file left open in a global is flushed as the interpreter ends: read back by
		// the next decision.
		"unclosed": "import os, sys\nif os.path.exists('state'):\n    print(open('state').read())\nf = open('state', 'w')\nf.write('kept ' + sys.argv[1])\n",
	}
	sb := launcherSandboxes(t)["bwrap"]
	if sb == nil {
		sb = Unsandboxed{}
	}
	for name, src := range bots {
		t.Run(name, func(t *testing.T) {
			forked, plain := forkPair(t, sb, src)
			job := Job{Args: []string{"1"}, Timeout: 10 * time.Second}
			f := forked.Launch(context.Background(), job)
			if name == "gone" {
				// The script moved away: both now meet a missing file.
				p := plain.Launch(context.Background(), job)
				f = forked.Launch(context.Background(), job)
				if !f.Forked {
					t.Fatalf("not forked: %+v", f)
				}
				f.Forked = false
				if !reflect.DeepEqual(f, p) || !strings.Contains(f.Stderr, "can't open file") {
					t.Fatalf("forked %+v\nplain %+v", f, p)
				}
				return
			}
			p := plain.Launch(context.Background(), job)
			if name == "unclosed" {
				f = forked.Launch(context.Background(), job)
				p = plain.Launch(context.Background(), job)
				if p.Stdout != "kept 1\n" {
					t.Fatalf("plain: %+v", p)
				}
			}
			if !f.Forked {
				t.Fatalf("not forked: %+v", f)
			}
			f.Forked = false
			if !reflect.DeepEqual(f, p) {
				t.Fatalf("forked %+v\nplain  %+v", f, p)
			}
		})
	}
}

// hostileForkBot attacks its fork server as its argument says, then answers; "ok" only
// answers. The server is its parent: it can kill it, and where seccomp lets it
// (pidfd_getfd, denied in the bwrap sandbox) take its control socket and write to it.
const hostileForkBot = `import ctypes, os, sys
mode = sys.argv[1]
if mode == "kill":
    os.kill(os.getppid(), 9)
elif mode == "stop":
    os.kill(os.getppid(), 19)
elif mode in ("garbage", "forge", "flood"):
    fd = ctypes.CDLL(None, use_errno=True).syscall(438, os.pidfd_open(os.getppid()), 3, 0)
    if fd < 0:
        print("denied", ctypes.get_errno())
        sys.exit(0)
    if mode == "garbage":
        os.write(fd, b"\xffgarbage")
    elif mode == "forge":
        # Reports for the pids the next decisions will get, queued ahead of them.
        for pid in range(os.getpid() + 1, os.getpid() + 50):
            os.write(fd, b"P%d" % pid)
            os.write(fd, b"S%d 0" % pid)
    else:
        os.set_blocking(fd, False)
        try:
            while True:
                os.write(fd, b"S" * 60000)
        except BlockingIOError:
            pass
print(mode, "answered")
`

// A bot that kills, stops, or (unsandboxed) writes forged or garbage reports to its fork
// server only decides its own decision: never a host fault, the launcher itself is not
// restarted, the server is, and the bot's next decisions are served by it as usual.
func TestForkServerHostileBot(t *testing.T) {
	for name, sb := range launcherSandboxes(t) {
		t.Run(name, func(t *testing.T) {
			l, _ := forkPair(t, sb, hostileForkBot)
			for _, mode := range []string{"ok", "kill", "ok", "stop", "ok", "garbage", "ok", "forge", "ok", "ok", "flood", "ok"} {
				r := l.Launch(context.Background(), Job{Args: []string{mode}, Timeout: 3 * time.Second})
				if r.Fault != nil && (r.Fault.Outcome == engine.HostFault || mode == "ok") {
					t.Fatalf("%s: %+v", mode, r)
				}
				if mode == "ok" && (r.Stdout != "ok answered\n" || !r.Forked) {
					t.Fatalf("after an attack: %+v", r)
				}
				t.Logf("%s: forked %v, %q, fault %v", mode, r.Forked, r.Stdout, r.Fault)
			}
			if n := l.Started(); n != 1 {
				t.Fatalf("%d launchers started, want 1 (the fork server restarts, not the launcher)", n)
			}
		})
	}
}

// BenchmarkLauncherPython is one decision of a small Python 3 bot in the bwrap sandbox,
// forked by the fork server or started afresh: CPU time by the sandbox's cgroup (a loaded
// machine inflates wall time, not CPU time). The bot is PassivePanga's arithmetic
// (imports sys only), or the same importing json as the snapshot's Mafia Sheriff does at
// every decision (a warm module: launch/forkserver.py).
func BenchmarkLauncherPython(b *testing.B) {
	bots := []struct{ name, src string }{
		{"sys", "import sys\ncredits = int(sys.argv[2])\nprint(69 if credits > 69 else 0)\n"},
		{"json", "import sys, json\ncredits = int(sys.argv[2])\nprint(json.dumps(69 if credits > 69 else 0))\n"},
	}
	for _, bot := range bots {
		for _, mode := range []string{"forked", "plain"} {
			b.Run(bot.name+"/"+mode, func(b *testing.B) { benchLauncherPython(b, bot.src, mode) })
		}
	}
	b.Run("sys/forked-turns", benchLauncherTurns)
}

// benchLauncherTurns is the sys bot's forked decisions taken in turns by two bots, as a
// Bank Heist tournament asks its bots one after another: ns/op is the wall time of one
// decision, in which the fork server of the bot that is not deciding forks its next
// decision's process ahead (launch/forkserver.py, serve).
func benchLauncherTurns(b *testing.B) {
	sb := NeedBwrap(b)
	var ls []*Launcher
	for range 2 {
		dir := b.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte("import sys\ncredits = int(sys.argv[2])\nprint(69 if credits > 69 else 0)\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		l := NewLauncher(sb, ProcSpec{Dir: dir, Argv: []string{"/usr/bin/python3", "bot.py"}, Limits: Limits{MemoryMB: 1024, Procs: 64}})
		defer l.Close()
		if r := l.Launch(context.Background(), Job{Args: []string{"1", "100"}, Timeout: time.Minute}); r.Fault != nil || !r.Forked {
			b.Fatalf("%+v", r)
		}
		ls = append(ls, l)
	}
	n := 0
	for b.Loop() {
		if _, f := ls[n%2].Run(context.Background(), []string{"1", "100"}, time.Minute); f != nil {
			b.Fatal(f)
		}
		n++
	}
}

func benchLauncherPython(b *testing.B, src, mode string) {
	sb := NeedBwrap(b)
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	spec := ProcSpec{Dir: dir, Argv: []string{"/usr/bin/python3", "bot.py"}, Limits: Limits{MemoryMB: 1024, Procs: 64}}
	l := NewLauncher(sb, spec)
	l.noForks = mode == "plain"
	defer l.Close()
	if r := l.Launch(context.Background(), Job{Args: []string{"1", "100"}, Timeout: time.Minute}); r.Fault != nil || r.Forked != (mode == "forked") {
		b.Fatalf("%+v", r)
	}
	sandboxCPU := func() time.Duration { return sandboxUse(l.idle[0].p.Proc).cpu }
	cpu0, self0 := sandboxCPU(), selfCPU()
	n := 0
	for b.Loop() {
		if _, f := l.Run(context.Background(), []string{"1", "100"}, time.Minute); f != nil {
			b.Fatal(f)
		}
		n++
	}
	b.ReportMetric(float64((sandboxCPU()-cpu0).Microseconds())/1000/float64(n), "sandbox-cpu-ms/op")
	b.ReportMetric(float64((selfCPU()-self0).Microseconds())/1000/float64(n), "daemon-cpu-ms/op")
}

// A forked decision that times out is read for starvation as a spawned one is: the
// launcher finds the child in /proc by its pid in the namespace and reports what it ran
// and waited (the runner's starved check reads them).
func TestForkServerTimeoutSchedstat(t *testing.T) {
	for name, sb := range launcherSandboxes(t) {
		t.Run(name, func(t *testing.T) {
			l, _ := forkPair(t, sb, "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.2: pass\ntime.sleep(30)\n")
			lp, err := l.get(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer lp.close()
			rep, f := lp.exchange(context.Background(), launchRequest{ID: 1, Timeout: 1, Out: 1 << 20}, 10*time.Second)
			if f != nil || rep.End != "timeout" || !rep.Forked || rep.Run == nil || rep.Wait == nil {
				t.Fatalf("fault %v, reply %+v", f, rep)
			}
			// Half the child's 200 ms: another process's schedstat (the wrong pid found)
			// reads a millisecond or two; a loaded host has read 148 ms for the right one.
			if *rep.Run < int64(100*time.Millisecond) {
				t.Fatalf("the child ran %v by its schedstat, want about 200ms", time.Duration(*rep.Run))
			}
		})
	}
}
