package pyclass

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The compiled harness (pycode.go) is the harness: run as the script, it answers what
// the source answers, byte for byte, a bot's failure described with the same frames (the
// harness's own left out, after the bot changed directory too) and the same source line;
// it is installed under its interpreter's tag and named by the command.
func TestCompiledHarnessAnswersAsItsSource(t *testing.T) {
	const python = "/usr/bin/python3"
	code := codeFor(python)
	if code.pyc == nil {
		t.Fatalf("no compiled harness for %s: %s", python, code.why)
	}
	tag, err := exec.Command(python, "-c", "import sys; print(sys.implementation.cache_tag)").Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "pyclass." + strings.TrimSpace(string(tag)) + ".pyc"; code.file != want {
		t.Fatalf("compiled harness named %q, want %q", code.file, want)
	}
	dir := t.TempDir()
	if err := InstallTestHarness(dir); err != nil {
		t.Fatal(err)
	}
	cfg := PyConfig{Python: python, Harness: "forty"}
	if err := cfg.installCode(dir); err != nil {
		t.Fatal(err)
	}
	if argv := cfg.argv(); argv[3] != HarnessDir+"/"+code.file {
		t.Fatalf("the harness's command runs %q", argv[3])
	}
	// Another interpreter's leftover goes; the right one stays as it is.
	stale := filepath.Join(dir, HarnessDir, "pyclass.cpython-39.pyc")
	if err := os.WriteFile(stale, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := cfg.installCode(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("another interpreter's compiled harness is still there (%v)", err)
	}
	// The bot moves to another directory first: the harness's frames are still known as
	// its own (the compiled code's file name is relative) and left out of the description.
	bot := `import os
class FailBot(Bot):
    def make_throw(self, scores, last_round):
        os.chdir("/")
        yield True
        yield 1 / 0
`
	if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte(bot), 0o644); err != nil {
		t.Fatal(err)
	}
	input := `{"class":"FailBot","seed":1}
{"t":30,"w":60,"calls":[{"g":1,"m":"new","a":{"seat":0}}]}
{"t":30,"w":60,"calls":[{"g":1,"m":"start","a":{"throws":[3],"scores":[0,0],"last":false}}]}
{"t":30,"w":60,"calls":[{"g":1,"m":"next","a":{"throws":[3,4]}}]}
`
	run := func(script string) string {
		cmd := exec.Command(python, "-u", "-B", script, "forty", "bot.py")
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(input)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", script, err, out)
		}
		return string(out)
	}
	source, compiled := run(harnessScript), run(HarnessDir+"/"+code.file)
	if source != compiled {
		t.Errorf("the compiled harness answered\n%s\nits source\n%s", compiled, source)
	}
	if !strings.Contains(source, `{"b":"1"}`) || !strings.Contains(source, `"d":"bot.py line 6 in make_throw: yield 1 / 0\nZeroDivisionError`) {
		t.Errorf("unexpected answers:\n%s", source)
	}
}

// Another interpreter behind the configured path (an upgrade replaced it while kothd
// runs) gets the harness compiled anew, for its own format, rather than the first one's,
// which it would refuse as a bad magic number at every start.
func TestCompiledHarnessFollowsTheInterpreter(t *testing.T) {
	link, other, swap := interpreterSwap(t)
	first := codeFor(link)
	swap()
	second := codeFor(link)
	if first.pyc == nil || second.pyc == nil || first.file == second.file {
		t.Fatalf("compiled for %s as %q (%s), then for %s as %q (%s)", "/usr/bin/python3", first.file, first.why, other, second.file, second.why)
	}
	dir := t.TempDir()
	if err := InstallTestHarness(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte("class B(Bot):\n    def make_throw(self, scores, last_round):\n        yield False\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := PyConfig{Python: link, Harness: "forty"}
	if err := cfg.installCode(dir); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(link, "-u", "-B", cfg.argv()[3], "forty", "bot.py")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(`{"class":"B","seed":1}` + "\n")
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), `"ready":true`) {
		t.Fatalf("the second interpreter's harness: %v\n%s", err, out)
	}
}

// interpreterSwap is a link to Debian's python3 and what points it at a second Python 3
// instead (other: pyenv's 3.12 or 3.13; the test is skipped without one), as an upgrade
// puts another interpreter file behind the configured path.
func interpreterSwap(t *testing.T) (link, other string, swap func()) {
	t.Helper()
	others, _ := filepath.Glob("/root/.pyenv/versions/3.1[23]*/bin/python3")
	if len(others) == 0 {
		t.Skip("no second Python 3 (pyenv's 3.12 or 3.13) on this host")
	}
	link = filepath.Join(t.TempDir(), "python3")
	if err := os.Symlink("/usr/bin/python3", link); err != nil {
		t.Fatal(err)
	}
	return link, others[0], func() {
		if err := os.Remove(link); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(others[0], link); err != nil {
			t.Fatal(err)
		}
	}
}
