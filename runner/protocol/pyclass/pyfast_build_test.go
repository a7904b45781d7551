package pyclass

import (
	"os"
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
