package sandbox

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
)

// The host's Python 2.7, as config.yaml's python2 language names it.
const testPython2 = "/root/.pyenv/versions/2.7.18/bin/python2.7"

// observeBot23 prints, as JSON, what a Python 2 or 3 bot can look at of its start (the
// Python 3 only parts are observeBot's). Its stdin may be from_server, its stdout
// to_server: the test reads whichever the form uses.
const observeBot23 = `import json, os, sys, stat
obs = {
    "argv": sys.argv, "path": sys.path, "cwd": os.getcwd(), "env": sorted(os.environ.items()),
    "modules": sorted(sys.modules), "main": sorted(globals()), "file": __file__, "name": __name__,
    "executable": sys.executable, "stdin": sys.stdin.read(), "fds": sorted(os.listdir("/proc/self/fd")),
    "session_leader": os.getsid(0) == os.getpid(), "group_leader": os.getpgrp() == os.getpid(),
    "umask": os.umask(0o22), "stdout_tty": sys.stdout.isatty(),
    "stdin_kind": stat.S_IFMT(os.fstat(0).st_mode), "stdout_kind": stat.S_IFMT(os.fstat(1).st_mode),
    "stdout_seekable": getattr(sys.stdout, "seekable", lambda: None)(),
    "stdin_seekable": getattr(sys.stdin, "seekable", lambda: None)(),
    "status": [l for l in open("/proc/self/status").read().splitlines() if l.split(":")[0] in ("Umask", "Seccomp", "NoNewPrivs", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "SigIgn", "SigBlk", "SigCgt", "Cpus_allowed_list")],
}
import resource, signal, random
obs["signals"] = [repr(signal.getsignal(s)) for s in range(1, signal.NSIG) if s not in (signal.SIGKILL, signal.SIGSTOP)]
obs["rlimits"] = [resource.getrlimit(getattr(resource, n)) for n in dir(resource) if n.startswith("RLIMIT_")]
obs["random"] = random.random()
sys.stdout.write(json.dumps(obs) + "\n")
`

// shimText is what runner/protocol/dirfiles's InstallShims writes for an interpreter.
func shimText(target string) string { return "#!/bin/sh\nexec '" + target + "' \"$@\"\n" }

// forkForm is one way a bot's program comes down to a Python interpreter and its script.
type forkForm struct {
	argv     []string // the bot command; nil: ./run
	run      string   // its `run`
	shebang  string   // bot.py's first line, if any
	redirect bool     // run reads from_server on stdin and writes to_server
}

// forkForms are the forms the fork server serves, each with the interpreter it ends in.
var forkForms = map[string]forkForm{
	"py2-argv":              {argv: []string{testPython2, "bot.py"}},
	"py2-sh-exec-shim":      {run: "#!/bin/sh\nexec python bot.py\n"},
	"py2-bash-shim":         {run: "#!/bin/bash\npython2 bot.py"},
	"py2-bash-env-redirect": {run: "#!/bin/bash\n./bot.py < from_server > to_server\n", shebang: "#!/usr/bin/env python", redirect: true},
	"py2-sh-shebang":        {run: "#!/bin/sh\nexec ./bot.py <from_server >to_server\n", shebang: "#!" + testPython2, redirect: true},
	"py3-bash":              {run: "#!/bin/bash\npython3 bot.py\n"},
	"py3-bash-exec":         {run: "#!/bin/bash\nexec python3 'bot.py'\n"},
	"py3-bash-env-redirect": {run: "#!/bin/bash\n./bot.py < from_server > to_server\n", shebang: "#!/usr/bin/env python3", redirect: true},
}

// formPair returns a launcher with the fork server and one without for a bot of form f
// whose bot.py is src (after f's #! line), each in a directory of its own.
func formPair(t *testing.T, sb Sandbox, f forkForm, src string) (forked, plain *Launcher, fdir, pdir string) {
	t.Helper()
	mk := func() (*Launcher, string) {
		dir := t.TempDir()
		write := func(name, text string, mode os.FileMode) {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), mode); err != nil {
				t.Fatal(err)
			}
		}
		body := src
		if f.shebang != "" {
			body = f.shebang + "\n" + src
		}
		write("bot.py", body, 0o755)
		write(".kothd/bin/python", shimText(testPython2), 0o755)
		write(".kothd/bin/python2", shimText(testPython2), 0o755)
		write("from_server", "", 0o644)
		write("to_server", "", 0o644)
		spec := ProcSpec{Dir: dir, Argv: f.argv, Prefixes: []string{"/root/.pyenv/versions/2.7.18"}}
		if f.argv == nil {
			write("run", f.run, 0o755)
			spec.Argv = []string{"./run"}
			spec.Env = []string{"PATH=.kothd/bin:/usr/bin:/bin"}
		}
		return newTestLauncher(t, sb, spec), dir
	}
	forked, fdir = mk()
	plain, pdir = mk()
	plain.noForks = true
	return forked, plain, fdir, pdir
}

// decide runs one decision of a form's bot: its stdin given as from_server or stdin, its
// answer read from to_server or stdout.
func decide(t *testing.T, l *Launcher, dir string, f forkForm, in string) (Launched, string) {
	t.Helper()
	job := Job{Timeout: 20 * time.Second}
	if f.redirect {
		if err := os.WriteFile(filepath.Join(dir, "from_server"), []byte(in), 0o644); err != nil {
			t.Fatal(err)
		}
		job.DiscardStdout = true
	} else {
		job.Stdin = []byte(in)
	}
	r := l.Launch(context.Background(), job)
	if !f.redirect {
		return r, r.Stdout
	}
	b, err := os.ReadFile(filepath.Join(dir, "to_server"))
	if err != nil {
		t.Fatal(err)
	}
	return r, string(b)
}

// Each form the fork server serves gives the bot what launching it plainly gives it, with
// the real Python 2.7 and 3 in the bwrap sandbox: argv, paths, environment (the shells'
// PWD, SHLVL and _ included), descriptors and what they are (from_server and to_server
// for the redirections), signals, limits, modules, __main__, fresh randomness.
func TestForkServerFormsSameAsPlainLaunch(t *testing.T) {
	sb := NeedBwrap(t)
	for name, f := range forkForms {
		t.Run(name, func(t *testing.T) {
			forked, plain, fdir, pdir := formPair(t, sb, f, observeBot23)
			var draws []float64
			for i := range 3 {
				in := "Rise and shine!\n"
				if i == 1 {
					in = ""
				}
				fr, fout := decide(t, forked, fdir, f, in)
				pr, pout := decide(t, plain, pdir, f, in)
				if fr.Fault != nil || pr.Fault != nil || !fr.Forked || pr.Forked {
					t.Fatalf("decision %d: forked %+v; plain %+v", i, fr, pr)
				}
				var fo, po map[string]any
				if err := json.Unmarshal([]byte(fout), &fo); err != nil {
					t.Fatalf("forked: %v: %q", err, fout)
				}
				if err := json.Unmarshal([]byte(pout), &po); err != nil {
					t.Fatalf("plain: %v: %q", err, pout)
				}
				draws = append(draws, fo["random"].(float64))
				delete(fo, "random")
				delete(po, "random")
				for k := range po {
					fv, pv := fo[k], po[k]
					if !reflect.DeepEqual(fv, pv) {
						t.Errorf("decision %d: %s: forked %v, plain %v", i, k, fv, pv)
					}
				}
				if len(fo) != len(po) {
					t.Errorf("decision %d: forked printed %d keys, plain %d", i, len(fo), len(po))
				}
			}
			if draws[0] == draws[1] || draws[1] == draws[2] {
				t.Fatalf("random's first draws repeat across forked decisions: %v", draws)
			}
		})
	}
}

// How a decision ends is the same both ways in every form: exit status (a shell that
// waited for the interpreter gives 128+n for its signal), uncaught exceptions and their
// tracebacks, exit handlers, Python 2's SystemExit and KeyboardInterrupt, a missing script.
func TestForkServerFormsSameEnds(t *testing.T) {
	sb := NeedBwrap(t)
	bots := map[string]string{
		"exit3":     "import sys\nsys.stdout.write('x\\n')\nsys.exit(3)\n",
		"exitmsg":   "import sys\nsys.exit('bye')\n",
		"raise":     "def f():\n    raise ValueError('no')\nf()\n",
		"syntax":    "print('x'\n",
		"kill":      "import os, sys\nsys.stdout.write('a\\n')\nsys.stdout.flush()\nos.kill(os.getpid(), 9)\n",
		"interrupt": "raise KeyboardInterrupt\n",
		"atexit":    "import atexit, sys\natexit.register(lambda: sys.stdout.write('at exit\\n'))\nsys.stdout.write('main\\n')\n",
		"thread":    "import threading, time, sys\ndef late():\n    time.sleep(0.2)\n    sys.stdout.write('late\\n')\nthreading.Thread(target=late).start()\nsys.stdout.write('main\\n')\n",
		"unflushed": "import sys\nsys.stdout.write('no newline')\n",
	}
	for _, form := range []string{"py2-argv", "py2-bash-env-redirect", "py3-bash"} {
		f := forkForms[form]
		for name, src := range bots {
			t.Run(form+"/"+name, func(t *testing.T) {
				forked, plain, fdir, pdir := formPair(t, sb, f, src)
				fr, fout := decide(t, forked, fdir, f, "in\n")
				pr, pout := decide(t, plain, pdir, f, "in\n")
				if !fr.Forked {
					t.Fatalf("not forked: %+v", fr)
				}
				if fout != pout || fr.Exit != pr.Exit || outcome(fr.Fault) != outcome(pr.Fault) {
					t.Fatalf("forked %q %+v\nplain  %q %+v", fout, fr, pout, pr)
				}
				// A shell reports the signal that killed what it waited for, with its pid.
				if name != "kill" && strings.ReplaceAll(fr.Stderr, fdir, pdir) != pr.Stderr {
					t.Fatalf("stderr: forked %q\nplain  %q", fr.Stderr, pr.Stderr)
				}
			})
		}
	}
}

// hostileForms is a Python 2 bot of the Randy form that, as its from_server says, attacks
// its fork server or rewrites what its `run` comes down to, then answers.
const hostileForms = `import os, sys, signal
mode = sys.stdin.read().strip()
if mode == "kill":
    os.kill(os.getppid(), 9)
elif mode == "stop":
    os.kill(os.getppid(), signal.SIGSTOP)
elif mode == "shim":
    # The shim now runs a shell script: no longer Python 2, so launched plainly.
    open(".kothd/bin/python", "w").write("#!/bin/sh\necho shimmed\n")
elif mode == "fifo":
    os.remove("from_server")
    os.mkfifo("from_server")
elif mode == "run":
    open("run", "w").write("#!/bin/sh\necho rewritten > to_server\n")
sys.stdout.write(mode + " answered\n")
`

// A bot that kills or stops its fork server, or rewrites the files its `run` comes down
// to (the shim, `run` itself, from_server made a FIFO), only decides its own decisions: no
// host fault, no hang, and each later decision runs what plain launching would run.
func TestForkServerFormsHostileBot(t *testing.T) {
	sb := NeedBwrap(t)
	f := forkForms["py2-bash-env-redirect"]
	l, _, dir, _ := formPair(t, sb, f, hostileForms)
	for _, step := range []struct {
		mode, want string
		forked     bool
	}{
		{"ok", "ok answered\n", true}, {"kill", "", true}, {"ok", "ok answered\n", true},
		{"stop", "", true}, {"ok", "ok answered\n", true}, {"shim", "shim answered\n", true},
		{"ok", "shimmed\n", false},
	} {
		r, out := decide(t, l, dir, f, step.mode)
		if r.Fault != nil && (r.Fault.Outcome == engine.HostFault || step.mode == "ok") {
			t.Fatalf("%s: %+v", step.mode, r)
		}
		if step.want != "" && (out != step.want || r.Forked != step.forked) {
			t.Fatalf("%s: forked %v, to_server %q; want %v, %q", step.mode, r.Forked, out, step.forked, step.want)
		}
	}
	// The shim back: served again.
	if err := os.WriteFile(filepath.Join(dir, ".kothd/bin/python"), []byte(shimText(testPython2)), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		mode, want string
		forked     bool
	}{
		{"ok", "ok answered\n", true}, {"fifo", "fifo answered\n", true},
	} {
		r, out := decide(t, l, dir, f, step.mode)
		if r.Fault != nil || out != step.want || r.Forked != step.forked {
			t.Fatalf("%s: forked %v, to_server %q: %+v", step.mode, r.Forked, out, r)
		}
	}
	// from_server is a FIFO now: the launcher does not open it (it would block); the
	// shell does, and blocks until the timeout, as plainly.
	r := l.Launch(context.Background(), Job{Timeout: 2 * time.Second, DiscardStdout: true})
	if r.Forked || outcome(r.Fault) != engine.Timeout {
		t.Fatalf("FIFO from_server: %+v", r)
	}
	if err := os.Remove(filepath.Join(dir, "from_server")); err != nil {
		t.Fatal(err)
	}
	r, out := decide(t, l, dir, f, "run")
	if r.Fault != nil || !r.Forked || out != "run answered\n" {
		t.Fatalf("run: %+v %q", r, out)
	}
	r, out = decide(t, l, dir, f, "ok")
	if r.Fault != nil || r.Forked || out != "rewritten\n" {
		t.Fatalf("after rewriting run: %+v %q", r, out)
	}
	if n := l.Started(); n != 1 {
		t.Fatalf("%d launchers started, want 1", n)
	}
}

// The CPU limit reaches the interpreter under a waiting shell as it does when launched
// plainly (the shell's child inherits it): a spinning bot dies of SIGXCPU after its CPU
// second, and the shell exits with 128+SIGXCPU, both ways, long before the wall timeout.
func TestForkServerFormsCPULimit(t *testing.T) {
	sb := NeedBwrap(t)
	for _, form := range []string{"py3-bash", "py2-bash-env-redirect"} {
		t.Run(form, func(t *testing.T) {
			f := forkForms[form]
			forked, plain, fdir, pdir := formPair(t, sb, f, "while True:\n    pass\n")
			for _, l := range []*Launcher{forked, plain} {
				l.spec.Limits.CPUTime = time.Second
			}
			fr, _ := decide(t, forked, fdir, f, "")
			pr, _ := decide(t, plain, pdir, f, "")
			if !fr.Forked || fr.Exit != pr.Exit || outcome(fr.Fault) != outcome(pr.Fault) || pr.Exit != 128+24 {
				t.Fatalf("forked %+v\nplain  %+v", fr, pr)
			}
		})
	}
}
