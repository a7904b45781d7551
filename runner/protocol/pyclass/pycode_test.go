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
// harness's own left out by their file name, which the compiled code keeps) and the same
// source line; it is installed under its interpreter's tag and named by the command.
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
	bot := `class FailBot(Bot):
    def make_throw(self, scores, last_round):
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
	if !strings.Contains(source, `{"b":"1"}`) || !strings.Contains(source, `"d":"bot.py line 4 in make_throw: yield 1 / 0\nZeroDivisionError`) {
		t.Errorf("unexpected answers:\n%s", source)
	}
}
