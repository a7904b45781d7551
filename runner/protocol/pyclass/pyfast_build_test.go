package pyclass

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A build that does not load (a compiler that made a library without the module's entry
// point, as from a source file another kothd process was rewriting at the time) is not
// taken for the C loop: FastHarness says the Python loop serves and why, nothing is kept
// in the cache for the next run to find, and a later build with a working compiler serves.
func TestFastBuildThatDoesNotLoadIsNotUsed(t *testing.T) {
	const python = "/usr/bin/python3.11"
	if _, err := os.Stat(python); err != nil {
		t.Skip(err)
	}
	t.Setenv(FastEnv, "")
	bin := t.TempDir()
	cc := filepath.Join(bin, "cc")
	// Compiles an empty translation unit into the output the build asked for.
	script := "#!/bin/sh\nout=\nwhile [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=$2; shift; done\nexec cc -shared -fPIC -o \"$out\" -x c /dev/null\n"
	if err := os.WriteFile(cc, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CC", cc)
	cacheDir := t.TempDir()
	fast.Lock()
	cache := fast.cache
	fast.cache = cacheDir
	delete(fast.exts, python)
	fast.Unlock()
	t.Cleanup(func() {
		fast.Lock()
		fast.cache = cache
		delete(fast.exts, python)
		fast.Unlock()
	})
	if loop := FastHarness(python, false); !strings.HasPrefix(loop, "Python (") || !strings.Contains(loop, "does not load") {
		t.Fatalf("loop with a build that does not load: %s", loop)
	}
	if kept, _ := filepath.Glob(filepath.Join(cacheDir, "*", fastPrefix+"*.so")); len(kept) != 0 {
		t.Fatalf("a build that does not load is kept for the next run: %v", kept)
	}
	t.Setenv("CC", "")
	fast.Lock()
	delete(fast.exts, python)
	fast.Unlock()
	if loop := FastHarness(python, false); !strings.HasPrefix(loop, "C (") {
		t.Fatalf("loop with a working compiler after a bad build: %s", loop)
	}
}

// A cache directory others may write to (the system's temporary directory's, when kothd
// was given none: /tmp/kothd-pyfast-<uid> is a name any local user can make first) is not
// used: a library planted there would be loaded on the host to be tried, and in every bot's
// sandbox.
func TestFastBuildRefusesACacheOthersCanWrite(t *testing.T) {
	const python = "/usr/bin/python3.11"
	if _, err := os.Stat(python); err != nil {
		t.Skip(err)
	}
	t.Setenv(FastEnv, "")
	t.Setenv("CC", "")
	// Where a build for python goes: its key's folder, found by a build in a private cache.
	good := t.TempDir()
	if _, err := buildFast(python, good); err != nil {
		t.Fatal(err)
	}
	keys, _ := filepath.Glob(filepath.Join(good, "*", fastPrefix+"*.so"))
	if len(keys) != 1 {
		t.Fatalf("builds: %v", keys)
	}
	rel, _ := filepath.Rel(good, keys[0])
	// Another user's plant: a library whose initialisation leaves a mark.
	shared := filepath.Join(t.TempDir(), "shared")
	mark := filepath.Join(t.TempDir(), "planted-code-ran")
	if err := os.MkdirAll(filepath.Dir(filepath.Join(shared, rel)), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "plant.c")
	plant := "#include <stdio.h>\nvoid *PyInit__pyclassfast(void) { FILE *f = fopen(\"" + mark + "\", \"w\"); if (f) fclose(f); return 0; }\n"
	if err := os.WriteFile(src, []byte(plant), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cc", "-shared", "-fPIC", "-o", filepath.Join(shared, rel), src).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v: %s", err, out)
	}
	fast.Lock()
	cache := fast.cache
	fast.cache = shared
	delete(fast.exts, python)
	fast.Unlock()
	t.Cleanup(func() {
		fast.Lock()
		fast.cache = cache
		delete(fast.exts, python)
		fast.Unlock()
	})
	loop := FastHarness(python, false)
	if _, err := os.Stat(mark); err == nil {
		t.Fatalf("the planted library ran on the host (loop: %s)", loop)
	}
	if !strings.HasPrefix(loop, "Python (") || !strings.Contains(loop, "others can write") {
		t.Fatalf("loop with a cache others can write: %s", loop)
	}
}

// Another interpreter file behind the configured path (a distribution's upgrade from one
// Python 3 to the next while the daemon runs) gets a build of its own, named with its own
// suffix, rather than the first one's, which its harnesses would not find.
func TestFastBuildFollowsTheInterpreter(t *testing.T) {
	t.Setenv(FastEnv, "")
	link, other, swap := interpreterSwap(t)
	t.Cleanup(func() {
		fast.Lock()
		delete(fast.exts, link)
		fast.Unlock()
	})
	first := fastFor(link)
	swap()
	second := fastFor(link)
	if first.so == nil {
		t.Skipf("no C loop for /usr/bin/python3 here: %s", first.why)
	}
	if second.so == nil && !strings.Contains(second.why, "Python.h") && !strings.Contains(second.why, "header") {
		t.Fatalf("no build for %s: %s", other, second.why)
	}
	if second.so != nil && second.file == first.file {
		t.Fatalf("built for %s as %q, then for %s as the same %q", "/usr/bin/python3", first.file, other, second.file)
	}
	if second == first {
		t.Fatalf("the build for the first interpreter served the second (%s)", other)
	}
}
