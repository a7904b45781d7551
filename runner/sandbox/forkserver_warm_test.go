package sandbox

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// warmBot imports warm modules (launch/forkserver.py's WARM) one after the other and
// prints what sys.modules holds after each, whether the modules see each other as one
// import would have left them, and a draw; then it spoils what it imported, which the
// next decision must not see.
const warmBot = `import sys
obs = {"start": sorted(sys.modules)}
import json
obs["json"] = sorted(sys.modules)
import random, collections
obs["all"] = sorted(sys.modules)
import re
obs["same_re"] = json.decoder.re is re and json.scanner.re is re
obs["dumps"] = json.dumps({"a": [1, 2.5, None]}, sort_keys=True)
obs["loads"] = json.loads('{"b": [true]}')
obs["counter"] = sorted(collections.Counter("abracadabra").items())
obs["file"] = json.__file__
obs["random"] = random.random()
sys.stdout.write(json.dumps(obs) + "\n")
json.dumps = None
json.decoder.JSONDecoder.decode = None
collections.Counter = None
random.seed(7)
`

// A forked Python 3 decision that imports warm modules gets what a fresh interpreter's
// imports give it: the same sys.modules after each import, the modules wired to each
// other as one import wires them, fresh randomness at every decision, and none of what
// an earlier decision did to the modules.
func TestForkServerWarmModulesAsImported(t *testing.T) {
	sb := NeedBwrap(t)
	for _, form := range []string{"py3-bash", "py3-bash-env-redirect"} {
		t.Run(form, func(t *testing.T) {
			f := forkForms[form]
			forked, plain, fdir, pdir := formPair(t, sb, f, warmBot)
			var draws []float64
			for i := range 3 {
				fr, fout := decide(t, forked, fdir, f, "")
				pr, pout := decide(t, plain, pdir, f, "")
				if fr.Fault != nil || pr.Fault != nil || !fr.Forked || pr.Forked {
					t.Fatalf("decision %d: forked %+v; plain %+v", i, fr, pr)
				}
				var fo, po map[string]any
				if err := json.Unmarshal([]byte(fout), &fo); err != nil {
					t.Fatalf("forked: %v: %q (stderr %q)", err, fout, fr.Stderr)
				}
				if err := json.Unmarshal([]byte(pout), &po); err != nil {
					t.Fatalf("plain: %v: %q", err, pout)
				}
				draws = append(draws, fo["random"].(float64))
				delete(fo, "random")
				delete(po, "random")
				if !reflect.DeepEqual(fo, po) {
					for k := range po {
						if !reflect.DeepEqual(fo[k], po[k]) {
							t.Errorf("decision %d: %s: forked %v\nplain %v", i, k, fo[k], po[k])
						}
					}
				}
				if fo["same_re"] != true {
					t.Errorf("decision %d: json's re is not the re the bot imports", i)
				}
			}
			if draws[0] == draws[1] || draws[1] == draws[2] {
				t.Fatalf("random's first draws repeat across forked decisions: %v", draws)
			}
		})
	}
}

// A module of the bot's own that bears a warm module's name (its json.py, its re.py that
// json's import would read, one it writes while it runs) is what the bot's import gets,
// forked as plainly launched; so is a directory the bot puts first on sys.path.
func TestForkServerWarmModulesShadowed(t *testing.T) {
	sb := NeedBwrap(t)
	f := forkForms["py3-bash"]
	cases := map[string]struct {
		files map[string]string
		src   string
	}{
		"own json": {map[string]string{"json.py": "def dumps(x):\n    return 'mine'\n"},
			"import json\nprint(json.dumps(1))\n"},
		"own re under json": {map[string]string{"re.py": "import sys\nsys.stdout.write('own re\\n')\nVERBOSE = MULTILINE = DOTALL = 0\ndef compile(p, f=0):\n    return None\n"},
			"import json\nprint(sorted(m for m in __import__('sys').modules if m.startswith('json')))\n"},
		"own package": {map[string]string{"collections/__init__.py": "Counter = 'mine'\n"},
			"import collections\nprint(collections.Counter)\n"},
		// Written by the script after an import listed its directory: found as the
		// interpreter's finder finds it (its directory changed since).
		"written at run time": {nil,
			"import re, time\ntime.sleep(0.05)\nopen('json.py', 'w').write(\"def dumps(x):\\n    return 'mine'\\n\")\nimport json\nprint(json.dumps(1))\n"},
		"sys.path": {map[string]string{"lib/random.py": "def random():\n    return 'mine'\n"},
			"import sys\nsys.path.insert(0, 'lib')\nimport random\nprint(random.random())\n"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			forked, plain, fdir, pdir := formPair(t, sb, f, c.src)
			for _, dir := range []string{fdir, pdir} {
				for file, text := range c.files {
					p := filepath.Join(dir, file)
					if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			fr, fout := decide(t, forked, fdir, f, "")
			pr, pout := decide(t, plain, pdir, f, "")
			if !fr.Forked || fout != pout || fr.Exit != pr.Exit || strings.ReplaceAll(fr.Stderr, fdir, pdir) != pr.Stderr {
				t.Fatalf("forked %q %+v\nplain  %q %+v", fout, fr, pout, pr)
			}
			if !strings.Contains(pout, "mine") && !strings.Contains(pout, "own re") {
				t.Fatalf("the bot's own module was not imported: %q", pout)
			}
		})
	}
}

// servedBot reports whether the json it imports is the fork server's (the warm import's
// own objects, reached as a bot can reach them), then spoils the server's copy.
const servedBot = `import sys
try:
    import _frozen_importlib as b
    warm = getattr(b._find_and_load, "__self__", None)
except ImportError:
    warm = sys.meta_path[0] if sys.meta_path else None
mods = getattr(warm, "mods", None) or {}
import json
sys.stdout.write("%s %s\n" % (mods.get("json") is json, json.dumps([1])))
if mods:
    mods["json"].dumps = lambda *a, **k: "spoiled"
`

// The warm modules are served, Python 2 and 3: the json a forked decision imports is the
// server's (a fresh import would be another object), and a decision that spoils the
// server's objects spoils only its own copy of them.
func TestForkServerServesWarmModules(t *testing.T) {
	sb := NeedBwrap(t)
	for _, form := range []string{"py3-bash", "py2-argv", "py2-bash-env-redirect", "py3-bash/after a module from disk", "py2-argv/after a module from disk"} {
		t.Run(form, func(t *testing.T) {
			form, after, _ := strings.Cut(form, "/")
			f := forkForms[form]
			src := servedBot
			if after != "" { // a finder of the import system's own for the script's directory
				src = "import fractions\n" + src
			}
			forked, plain, fdir, pdir := formPair(t, sb, f, src)
			for i := range 2 {
				fr, fout := decide(t, forked, fdir, f, "")
				if fr.Fault != nil || !fr.Forked || fout != "True [1]\n" {
					t.Fatalf("forked decision %d: %q %+v", i, fout, fr)
				}
			}
			if pr, pout := decide(t, plain, pdir, f, ""); pr.Fault != nil || pout != "False [1]\n" {
				t.Fatalf("plain: %q %+v", pout, pr)
			}
		})
	}
}

// warmAsFresh are scripts whose output (and stderr, exit status) is what a fresh
// interpreter's imports give, for the warm modules' import to be compared with.
var warmAsFresh = map[string]string{
	// The import system imports a module's package first: json is in sys.modules.
	"import_module of a submodule": "import sys, importlib\nimportlib.import_module('json.encoder')\nprint(list(sys.modules))\n",
	// sys.modules in the order a fresh import leaves it, whatever the server imported first.
	"order":         "import sys, functools\nprint(list(sys.modules))\nimport string, json\nprint(list(sys.modules))\n",
	"order of enum": "import enum, sys\nprint(list(sys.modules))\nimport re\nprint(list(sys.modules))\n",
	// Tables other warm modules' imports fill: re's cache (json's, string's patterns),
	// copyreg's picklers (re's Pattern), the import system's finders (json's, re's
	// directories; the script's directory, and the script itself as the interpreter
	// asked whether it was a zip file to run).
	"re's cache": "import re\nprint(list(re._cache))\nimport json\nprint(sorted(map(repr, re._cache)))\n",
	"copyreg":    "import copyreg\nprint(sorted(map(repr, copyreg.dispatch_table)))\nimport re\nprint(sorted(map(repr, copyreg.dispatch_table)))\n",
	"finders":    "import sys\nprint(sorted(sys.path_importer_cache))\nimport json\nprint(sorted(sys.path_importer_cache))\n",
	// Every warm module, then what a bot is likely to import next from disk.
	"all of them": "import sys\nimport re, json, random, collections, functools, string, copy, heapq, bisect, math, itertools, operator, time\nprint(list(sys.modules), sorted(sys.path_importer_cache), sorted(map(repr, re._cache)), sorted(map(repr, sys.modules['copyreg'].dispatch_table)))\nimport fractions, decimal\nprint(list(sys.modules), sorted(sys.path_importer_cache), sorted(map(repr, re._cache)))\n",
	// A module taken out of sys.modules is a new module at its next import.
	"imported again": "import sys, json, random\njson.x = 1\nrandom.random = None\ndel sys.modules['json'], sys.modules['random']\nimport json, random\nprint(hasattr(json, 'x'), random.random is None)\n",
	// A module of the interpreter's start the script took out or replaced is what the
	// warm modules' imports get: an ImportError, the script's own object.
	"start module gone":     "import sys\nsys.modules['os'] = None\ntry:\n    import random\nexcept ImportError as e:\n    print(e)\nprint('random' in sys.modules)\n",
	"start module replaced": "import sys, types\nsys.modules['os'] = fake = types.ModuleType('os')\nfake.urandom = lambda n: b'x' * n\nfake.register_at_fork = lambda **k: None\nimport random\nprint(random._os is fake, random._urandom is fake.urandom)\n",
	// What a warm import's code reads of a module the script has changed is the
	// script's: json's import compiles with the script's re.compile, random binds its
	// os.urandom (2.7's random seeds from it).
	"re.compile replaced": "import re\nreal, seen = re.compile, []\ndef compile(p, f=0):\n    seen.append(p)\n    return real(p, f)\nre.compile = compile\nimport json\nprint(len(seen))\n",
	"os.urandom replaced": "import os\nos.urandom = lambda n: bytes(n)\nimport random\nprint(random._urandom is os.urandom)\n",
	// A finder the script puts in sys.path_importer_cache is asked, as the import
	// system asks it.
	"script's finder": "import sys\nclass F:\n    def find_spec(self, name, target=None):\n        print('asked', name)\n        return None\n    def invalidate_caches(self):\n        pass\nsys.path_importer_cache[sys.path[0]] = F()\nimport json\nprint(json.__name__)\n",
	// The script's own os.stat and os.listdir are not called by its imports.
	"os patched": "import os\nos.stat = os.listdir = lambda *a, **k: 1/0\nimport json\nprint(json.dumps(1))\n",
}

// warmAsFresh2 are warmAsFresh's for Python 2.7, whose sys.modules has no order and
// whose re and copy_reg are modules of the interpreter's start.
var warmAsFresh2 = map[string]string{
	"re's cache":  "import re\nprint(sorted(map(repr, re._cache)))\nimport json\nprint(sorted(map(repr, re._cache)))\n",
	"finders":     "import sys\nprint(sorted(sys.path_importer_cache))\nimport json\nprint(sorted(sys.path_importer_cache))\n",
	"all of them": "import sys\nimport re, json, random, collections, functools, string, copy, heapq, bisect, math, itertools, operator, time\nprint(sorted(sys.modules), sorted(sys.path_importer_cache), sorted(map(repr, re._cache)), sorted(map(repr, sys.modules['copy_reg'].dispatch_table)))\nimport fractions, decimal\nprint(sorted(sys.modules), sorted(sys.path_importer_cache), sorted(map(repr, re._cache)))\n",
	// time's import reads TZ (2.7's time is not a module of the interpreter's start).
	"TZ":                    "import os\nos.environ['TZ'] = 'EST+5'\nimport time\nprint(time.timezone, time.tzname, time.localtime(0).tm_hour)\n",
	"re.compile replaced":   "import re\nreal, seen = re.compile, []\ndef compile(p, f=0):\n    seen.append(p)\n    return real(p, f)\nre.compile = compile\nimport json\nprint(len(seen))\n",
	"os.urandom replaced":   "import os\nos.urandom = lambda n: '\\0' * n\nimport random\nprint(random.random())\n",
	"imported again":        "import sys, json, random\njson.x = 1\nrandom.random = None\ndel sys.modules['json'], sys.modules['random']\nimport json, random\nprint(hasattr(json, 'x'), random.random is None)\n",
	"start module gone":     "import sys\nsys.modules['re'] = None\ntry:\n    import json\nexcept ImportError as e:\n    print(e)\nprint(sorted(sys.modules))\n",
	"start module replaced": "import sys, types\nsys.modules['os'] = fake = types.ModuleType('os')\nfake.urandom = lambda n: 'x' * n\nimport random\nprint(random._urandom is fake.urandom)\n",
	"os patched":            "import os\nos.stat = os.listdir = lambda *a, **k: 1/0\nimport json\nprint(json.dumps(1))\n",
	"script's finder":       "import sys\nclass F(object):\n    def find_module(self, name, path=None):\n        print 'asked', name\n        return None\nsys.path_importer_cache[sys.path[0]] = F()\nimport json\nprint(json.__name__)\n",
	// 2.7 asks every finder of sys.meta_path before its own import, the last one too.
	"script's meta finder": "import sys\nclass F(object):\n    def find_module(self, name, path=None):\n        print 'asked', name\n        return None\nsys.meta_path.append(F())\nimport json\nprint(json.__name__)\n",
}

// A forked decision's imports of warm modules leave what a fresh interpreter's leave,
// Python 3 and 2.7: sys.modules (in its order), the tables the imports fill, a module
// imported again afresh, the script's changes to the modules of the interpreter's start
// seen, and none of the script's own functions called by the import.
func TestForkServerWarmImportsAsFresh(t *testing.T) {
	sb := NeedBwrap(t)
	for form, cases := range map[string]map[string]string{"py3-bash": warmAsFresh, "py2-argv": warmAsFresh2, "py3-bash-env-redirect": warmAsFresh, "py2-bash-env-redirect": warmAsFresh2} {
		f := forkForms[form]
		for name, src := range cases {
			t.Run(form+"/"+name, func(t *testing.T) {
				forked, plain, fdir, pdir := formPair(t, sb, f, src)
				for range 2 {
					fr, fout := decide(t, forked, fdir, f, "")
					pr, pout := decide(t, plain, pdir, f, "")
					fout, ferr := strings.ReplaceAll(fout, fdir, pdir), strings.ReplaceAll(fr.Stderr, fdir, pdir)
					if !fr.Forked || pr.Forked || fout != pout || fr.Exit != pr.Exit || ferr != pr.Stderr {
						t.Fatalf("forked %q\n%q %v\nplain  %q\n%q %v", fout, ferr, fr.Exit, pout, pr.Stderr, pr.Exit)
					}
				}
			})
		}
	}
}

// threadsBot has threads import warm modules and their submodules at once, a forced switch
// at almost every instruction, then checks that each module is its package's attribute
// and the modules see each other.
const threadsBot = "import sys, threading\nsys.setswitchinterval(1e-6)\nnames = ['json.decoder', 'json', 'json.encoder', 'random', 're', 'string', 'collections', 'copy', 'json.scanner', 'functools', 'enum', 're._parser'] * 3\ndef imp(n):\n    try:\n        __import__(n)\n    except RuntimeError:\n        pass  # the import system's _DeadlockError, when it sees two threads wait for each other\nts = [threading.Thread(target=imp, args=(n,)) for n in names]\n[t.start() for t in ts]\n[t.join() for t in ts]\nimport json\nm = sys.modules\nbad = [n for n in m if '.' in n and getattr(m[n.rpartition('.')[0]], n.rpartition('.')[2], None) is not m[n]]\nprint(bad, json.decoder.re is m['re'], json.scanner is m['json.scanner'])\n"

// Threads importing warm modules at once see each module's closure whole, as the import
// system's module locks make it: one thread's warm import at a time. Forked only: the
// plain interpreter itself sometimes ends this race in its _DeadlockError, leaving json
// without its decoder; a warm import never waits on a module lock.
func TestForkServerWarmImportThreads(t *testing.T) {
	sb := NeedBwrap(t)
	f := forkForms["py3-bash"]
	forked, _, fdir, _ := formPair(t, sb, f, threadsBot)
	for i := range 10 { // they race differently each time: half the runs showed the race
		r, out := decide(t, forked, fdir, f, "")
		if !r.Forked || out != "[] True True\n" || r.Exit != 0 || r.Stderr != "" {
			t.Fatalf("decision %d: %q %q %+v", i, out, r.Stderr, r)
		}
	}
}

// forkBot forks while a thread keeps the warm modules' import busy; each child imports a
// warm module it has not imported yet.
const forkBot = `import os, sys, threading, _frozen_importlib as b
import json
stop = False
def busy():
    while not stop:
        b._find_and_load("json", None)
threading.Thread(target=busy, daemon=True).start()
ok = 0
for i in range(40):
    pid = os.fork()
    if pid == 0:
        import random
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    ok += status == 0
stop = True
print(ok)
`

// A process the script forks while one of its threads is in the warm modules' import
// imports warm modules too (the import's lock is its own again in the child, as the
// import system's lock is after a fork).
func TestForkServerWarmImportAfterFork(t *testing.T) {
	sb := NeedBwrap(t)
	f := forkForms["py3-bash"]
	forked, plain, fdir, pdir := formPair(t, sb, f, forkBot)
	fr, fout := decide(t, forked, fdir, f, "")
	pr, pout := decide(t, plain, pdir, f, "")
	if !fr.Forked || fout != "40\n" || pout != "40\n" || fr.Fault != nil {
		t.Fatalf("forked %q %q %+v\nplain  %q %q", fout, fr.Stderr, fr.Fault, pout, pr.Stderr)
	}
}
