package pyclass

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kothd/kothd/runner/sandbox"
)

// The harness's batch loop in C (harness/_pyclassfast.c): kothd compiles it for the
// configured interpreter with the host's C compiler and that interpreter's headers, keeps
// the result in a cache keyed by the interpreter's version, ABI and the source's hash, and
// copies it beside pyclass.py in each bot's .harness (read-only in the sandbox, as the rest
// of the directory). The harness loads the file named for its own interpreter's extension
// suffix and serves in Python when there is none or it does not load: the replies are the
// same byte for byte either way (harness_fast_test.go), only the harness's CPU per call
// differs. Without a compiler or headers (Debian's python3 needs python3-dev), or with the
// switch off (config python_fast: false, or KOTHD_PYCLASS_FAST=off in kothd's environment),
// the pure-Python loop serves; kothd logs once per interpreter which loop it uses.

//go:embed harness/_pyclassfast.c
var fastSource []byte

// fastPrefix is the extension's file name before the interpreter's suffix
// (.cpython-311-x86_64-linux-gnu.so): a file of another interpreter is never loaded.
const fastPrefix = "_pyclassfast"

// FastEnv is the environment variable that forces the pure-Python loop ("off", "0",
// "false", "no").
const FastEnv = "KOTHD_PYCLASS_FAST"

// fastEnvOff reports whether kothd's environment forces the pure-Python loop.
func fastEnvOff() bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv(FastEnv))) {
	case "off", "0", "false", "no":
		return true
	}
	return false
}

// fastExt is the extension built for one interpreter, or why there is none.
type fastExt struct {
	file string // file name in .harness: fastPrefix + the interpreter's suffix
	so   []byte
	why  string // when so is nil: why the pure-Python loop serves
}

var fast struct {
	sync.Mutex
	cache string                       // where builds are kept (SetFastCache); "" = the system's temporary directory
	exts  map[string]stamped[*fastExt] // by interpreter
	log   *slog.Logger
}

// SetFastCache sets where the C loop's builds are kept (kothd: its data directory's
// pyfast folder; the first one set stays, as kothd bench sets the host's before it moves
// its store to a scratch directory) and, if not nil, the logger that says which loop each
// interpreter uses.
func SetFastCache(dir string, log *slog.Logger) {
	fast.Lock()
	defer fast.Unlock()
	if fast.cache == "" {
		fast.cache = dir
	}
	if log != nil {
		fast.log = log
	}
}

// FastHarness says which batch loop the harness runs under python: "C (…)" or
// "Python (why)". It builds the extension if it is not built yet.
func FastHarness(python string, pure bool) string {
	if pure || fastEnvOff() {
		return "Python (switched off: config python_fast: false or " + FastEnv + "=off)"
	}
	e := fastFor(python)
	if e.so == nil {
		return "Python (" + e.why + ")"
	}
	return "C (" + e.file + ")"
}

// fastFor is python's build, made once per kothd process and interpreter file (builtFor;
// the cache makes it once per host): after an upgrade of the interpreter, its harnesses
// would otherwise look for an extension of the new suffix, find none and run the Python
// loop.
func fastFor(python string) *fastExt {
	fast.Lock()
	defer fast.Unlock()
	return builtFor(&fast.exts, python, func() *fastExt {
		cache := fast.cache
		if cache == "" {
			cache = filepath.Join(os.TempDir(), fmt.Sprintf("kothd-pyfast-%d", os.Getuid()))
		}
		e, err := buildFast(python, cache)
		if err != nil {
			e = &fastExt{why: err.Error()}
		}
		if e.so != nil {
			buildLog().Info("pyclass harness: batch loop in C", "python", python, "extension", e.file)
		} else {
			buildLog().Info("pyclass harness: batch loop in Python", "python", python, "why", e.why)
		}
		return e
	})
}

// buildLog is where what kothd builds for an interpreter is said (SetFastCache's logger);
// the caller holds fast's lock.
func buildLog() *slog.Logger {
	if fast.log != nil {
		return fast.log
	}
	return slog.Default()
}

// pyInfo asks the interpreter what the build needs.
const pyInfo = `import json, sys, sysconfig, importlib.machinery as m
print(json.dumps({"impl": sys.implementation.name, "version": sys.version, "suffix": m.EXTENSION_SUFFIXES[0],
 "soabi": sysconfig.get_config_var("SOABI") or "", "include": sysconfig.get_paths()["include"]}))`

// buildFast compiles the extension for python into cache (or finds it there).
func buildFast(python, cache string) (*fastExt, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, python, "-I", "-c", pyInfo).Output()
	if err != nil {
		return nil, fmt.Errorf("%s does not run: %v", python, err)
	}
	var info struct{ Impl, Version, Suffix, Soabi, Include string }
	if err := json.Unmarshal(out, &info); err != nil {
		return nil, fmt.Errorf("%s: reading its build configuration: %v", python, err)
	}
	if info.Impl != "cpython" {
		return nil, fmt.Errorf("%s is %s, not CPython", python, info.Impl)
	}
	if !strings.HasSuffix(info.Suffix, ".so") || strings.ContainsAny(info.Suffix, "/\x00") {
		return nil, fmt.Errorf("%s: unexpected extension suffix %q", python, info.Suffix)
	}
	if _, err := os.Stat(filepath.Join(info.Include, "Python.h")); err != nil {
		return nil, fmt.Errorf("no Python.h for %s in %s (Debian: apt-get install python3-dev)", python, info.Include)
	}
	if err := privateCache(cache); err != nil {
		return nil, err
	}
	h := sha256.New()
	for _, s := range []string{info.Version, info.Soabi, info.Suffix, info.Include} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	h.Write(fastSource)
	dir := filepath.Join(cache, hex.EncodeToString(h.Sum(nil))[:24])
	file := fastPrefix + info.Suffix
	so, err := os.ReadFile(filepath.Join(dir, file))
	if err == nil {
		if loadFast(ctx, python, filepath.Join(dir, file)) == nil {
			return &fastExt{file: file, so: so}, nil
		}
		// A cached build that does not load (kept by a kothd before builds were tried):
		// built again.
		os.Remove(filepath.Join(dir, file))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("C batch loop cache: %w", err)
	}
	// The source in a file of this build's own: two kothd processes (the daemon, kothd
	// bench) may build at once, and a compiler reading a file the other is rewriting
	// (truncated first) would build an empty library.
	srcf, err := os.CreateTemp(dir, "src-*.c")
	if err != nil {
		return nil, fmt.Errorf("C batch loop cache: %w", err)
	}
	src := srcf.Name()
	defer os.Remove(src)
	_, err = srcf.Write(fastSource)
	if cerr := srcf.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("C batch loop cache: %w", err)
	}
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	if _, err := exec.LookPath(cc); err != nil {
		return nil, fmt.Errorf("no C compiler (%s) on this host", cc)
	}
	tmp, err := os.CreateTemp(dir, "build-*.so")
	if err != nil {
		return nil, fmt.Errorf("C batch loop cache: %w", err)
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, cc, "-O2", "-shared", "-fPIC", "-I"+info.Include, "-o", tmp.Name(), src)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("compiling the C batch loop: %v: %s", err, sandbox.Truncate(stderr.String(), 500))
	}
	// What the compiler made must load in the interpreter: else every harness would say so
	// on its stderr and serve in Python while the host's log said C.
	if err := loadFast(ctx, python, tmp.Name()); err != nil {
		return nil, fmt.Errorf("the C batch loop built with %s does not load: %v", cc, err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, file)); err != nil {
		return nil, fmt.Errorf("C batch loop cache: %w", err)
	}
	so, err = os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return nil, fmt.Errorf("C batch loop cache: %w", err)
	}
	return &fastExt{file: file, so: so}, nil
}

// privateCache makes the cache's folder if it is missing and refuses one that others can
// write to: what it holds is loaded on the host (loadFast) and in every bot's sandbox. The
// default under the system's temporary directory has a name any local user could make
// first. Its owner must be kothd's user or root.
func privateCache(cache string) error {
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return fmt.Errorf("C batch loop cache: %w", err)
	}
	fi, err := os.Lstat(cache)
	if err != nil {
		return fmt.Errorf("C batch loop cache: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || (int(st.Uid) != os.Getuid() && st.Uid != 0) || fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("C batch loop cache %s: others can write to it (not a folder of kothd's user or root, closed to others)", cache)
	}
	return nil
}

// loadProbe loads the extension at argv[1] as the harness does (pyclass.py's _load_fast).
const loadProbe = `import sys, importlib.machinery as m
l = m.ExtensionFileLoader("_pyclassfast", sys.argv[1])
mod = l.create_module(m.ModuleSpec("_pyclassfast", l, origin=sys.argv[1]))
l.exec_module(mod)
mod.serve`

// loadFast reports whether python loads the extension in file (one interpreter start, once
// per interpreter and kothd process).
func loadFast(ctx context.Context, python, file string) error {
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, python, "-I", "-c", loadProbe, file)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%v: %s", err, lastWords(stderr.String()))
	}
	return nil
}

// lastWords is the last line of an interpreter's stderr (an uncaught exception's), cut
// for a log line.
func lastWords(stderr string) string {
	msg := strings.TrimSpace(stderr)
	if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
		msg = msg[i+1:]
	}
	return sandbox.Truncate(msg, 300)
}

// installMu orders the installs of the extension and the compiled harness: classes of one
// answer share a directory.
var installMu sync.Mutex

// installBuilds puts the C loop built for the configured interpreter beside the harness
// in dir (or takes any away, when the pure-Python loop is to serve), and the harness
// compiled for it (pycode.go): before each process's start, since the interpreter is the
// run's and the directory may hold an earlier run's.
func (c PyConfig) installBuilds(dir string) error {
	e := &fastExt{}
	if !c.PureHarness && !fastEnvOff() && c.Python != "" {
		e = fastFor(c.Python)
	}
	installMu.Lock()
	defer installMu.Unlock()
	err := c.installCode(dir)
	if err == nil {
		err = installBuilt(dir, fastPrefix+"*", e.file, e.so)
	}
	if err != nil {
		return fmt.Errorf("install the harness's builds (its C loop, its compiled code): %w", err)
	}
	return nil
}
