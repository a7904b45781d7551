package pyclass

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kothd/kothd/runner/sandbox"
)

// The harness's bytecode. An interpreter compiles the script it is given every time it
// starts and caches only what it imports: pyclass.py's 800 lines took 4.3 ms of every
// harness's start (of about 23 ms before it is ready), in every run, validation and class
// listing. kothd compiles the harness once per interpreter and kothd process (py_compile,
// the interpreter's own format and magic number) and installs the result beside the
// source as pyclass.<cache tag>.pyc (pyclass.cpython-311.pyc), which the harness's
// command then names: CPython runs a compiled file given as its script. The code's file
// name is the source's, relative to the bot's directory (.harness/pyclass.py): the harness
// knows its own frames by it whatever directory a bot moves to (pyclass.py's
// _harness_files). The tag in the name keeps another interpreter from being given it, and
// a new interpreter file behind the configured path is compiled for anew (the import
// system does not look for such a name either: `import pyclass` still finds the source).
// Where the interpreter cannot compile it (no py_compile, no cache tag), the source runs.

// harnessCode is the harness compiled for one interpreter, or why there is none.
type harnessCode struct {
	file string // pyclass.<cache tag>.pyc
	pyc  []byte
	why  string
}

// interpreterStamp names the file python is now (its link followed): another one behind
// the same path (a distribution upgrade from 3.11 to 3.13) reads a compiled harness of
// the other's format as a bad magic number, and every start would fail.
func interpreterStamp(python string) string {
	fi, err := os.Stat(python)
	if err != nil {
		return ""
	}
	ino := uint64(0)
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		ino = st.Ino
	}
	return fmt.Sprintf("%d %d %d", ino, fi.Size(), fi.ModTime().UnixNano())
}

var codes struct {
	sync.Mutex
	by map[string]stamped[*harnessCode]
}

// stamped is a build for one interpreter file (interpreterStamp).
type stamped[T any] struct {
	build T
	stamp string
}

// builtFor is by's build for python while python is the file it was made for, else a
// new one from build, kept in by (the caller holds the lock that guards by): a daemon
// that outlives an upgrade of the interpreter behind the configured path (3.11 to 3.13)
// builds for the new one.
func builtFor[T any](by *map[string]stamped[T], python string, build func() T) T {
	stamp := interpreterStamp(python)
	if s, ok := (*by)[python]; ok && s.stamp == stamp {
		return s.build
	}
	if *by == nil {
		*by = map[string]stamped[T]{}
	}
	s := stamped[T]{build: build(), stamp: stamp}
	(*by)[python] = s
	return s.build
}

// compileHarness compiles argv[1] into argv[2] for the code's file name argv[3] and prints
// the interpreter's cache tag. Unchecked-hash: the source beside it is the same harness,
// installed by the same kothd, and its timestamp is the copy's, not the compile's.
const compileHarness = `import py_compile, sys
tag = sys.implementation.cache_tag
if not tag:
    sys.exit("this interpreter caches no bytecode (no cache tag)")
py_compile.compile(sys.argv[1], cfile=sys.argv[2], dfile=sys.argv[3], doraise=True,
                   invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
print(tag)`

// codeFor is the harness compiled for python, made once per kothd process and
// interpreter file.
func codeFor(python string) *harnessCode {
	codes.Lock()
	defer codes.Unlock()
	return builtFor(&codes.by, python, func() *harnessCode {
		c, err := compileFor(python)
		if err != nil {
			c = &harnessCode{why: err.Error()}
			fast.Lock()
			log := buildLog()
			fast.Unlock()
			log.Info("pyclass harness: run from its source", "python", python, "why", c.why)
		}
		return c
	})
}

// compileFor compiles the harness with python.
func compileFor(python string) (*harnessCode, error) {
	dir, err := os.MkdirTemp("", "kothd-harness-code-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	src, out := filepath.Join(dir, "pyclass.py"), filepath.Join(dir, "pyclass.pyc")
	if err := os.WriteFile(src, pyclassHarness, 0o600); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, python, "-I", "-c", compileHarness, src, out, harnessScript)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("compiling the harness with %s: %v: %s", python, err, lastWords(stderr.String()))
	}
	tag := strings.TrimSpace(stdout.String())
	if tag == "" || strings.ContainsAny(tag, "/\x00 \n") {
		return nil, fmt.Errorf("%s: unexpected cache tag %q", python, tag)
	}
	pyc, err := os.ReadFile(out)
	if err != nil {
		return nil, err
	}
	return &harnessCode{file: "pyclass." + tag + ".pyc", pyc: pyc}, nil
}

// harnessScript is the harness's path as its command gives it, relative to the bot's
// directory (the sandbox's working directory).
const harnessScript = HarnessDir + "/pyclass.py"

// script is what the harness's command runs for c's interpreter: the compiled harness
// when there is one (installCode puts it in each directory), else its source.
func (c PyConfig) script() string {
	if c.Python != "" {
		if code := codeFor(c.Python); code.pyc != nil {
			return HarnessDir + "/" + code.file
		}
	}
	return harnessScript
}

// installCode puts the harness compiled for c's interpreter beside its source in dir,
// and takes away what another interpreter's left there (installMu held).
func (c PyConfig) installCode(dir string) error {
	code := &harnessCode{}
	if c.Python != "" {
		code = codeFor(c.Python)
	}
	return installBuilt(dir, "pyclass.*.pyc", code.file, code.pyc)
}

// installBuilt puts data, a build for the run's interpreter, in dir's .harness as file,
// and removes the other files matching pattern there (another interpreter's builds); with
// data nil, every match goes.
func installBuilt(dir, pattern, file string, data []byte) error {
	old, _ := filepath.Glob(filepath.Join(dir, HarnessDir, pattern))
	for _, f := range old {
		if data != nil && filepath.Base(f) == file {
			continue
		}
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", filepath.Base(f), err)
		}
	}
	if data == nil {
		return nil
	}
	return installOnce(dir, file, data)
}

// installOnce writes data as .harness/name in dir unless that file is already a regular
// file holding it (the directory is the bot's: never read back a link or a pipe of its
// making).
func installOnce(dir, name string, data []byte) error {
	path := filepath.Join(dir, HarnessDir, name)
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() && fi.Size() == int64(len(data)) {
		if have, err := os.ReadFile(path); err == nil && bytes.Equal(have, data) {
			return nil
		}
	}
	return sandbox.WriteBotFile(dir, HarnessDir+"/"+name, data, 0o644)
}
