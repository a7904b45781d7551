package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// kothd runs the command line in-process and returns its exit status and output.
func kothd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// testConfig writes a small valid config (its data in a temporary directory).
func testConfig(t *testing.T, extra string) string {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "config.yaml")
	body := "sandbox: none\nchallenges:\n  - {name: forty, question_id: 177765, engine: forty}\n  - {name: ruins, question_id: 183101}\n" + extra
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// -h is a request, not a mistake: exit 0, usage on stdout, positional arguments shown.
func TestHelpExitsZeroAndShowsArguments(t *testing.T) {
	code, out, _ := kothd(t, "-h")
	if code != 0 || !strings.Contains(out, "usage: kothd COMMAND") {
		t.Fatalf("kothd -h: exit %d, %q", code, out)
	}
	for _, c := range commands {
		if !strings.Contains(out, "  "+c.name+" ") {
			t.Errorf("kothd -h does not list %s", c.name)
		}
		code, out, errOut := kothd(t, c.name, "-h")
		if code != 0 || !strings.Contains(out, "usage: kothd "+c.name+" [flags]"+prefixed(" ", c.args)+"\n") {
			t.Errorf("kothd %s -h: exit %d, stdout %q, stderr %q", c.name, code, out, errOut)
		}
	}
	if _, out, _ := kothd(t, "replay", "--help"); !strings.Contains(out, "RUN GAME") || !strings.Contains(out, "-config file") {
		t.Errorf("replay usage: %q", out)
	}
	if code, _, errOut := kothd(t); code != 2 || !strings.Contains(errOut, "commands:") {
		t.Errorf("no command: exit %d, %q", code, errOut)
	}
	if code, _, errOut := kothd(t, "frobnicate"); code != 2 || !strings.Contains(errOut, `unknown command "frobnicate"`) {
		t.Errorf("unknown command: exit %d, %q", code, errOut)
	}
}

// Flags may follow positional arguments: the --config after RUN GAME is read (the command
// gets as far as asking the store for run 7), and "--" ends the flags.
func TestFlagsAnywhere(t *testing.T) {
	cfg := testConfig(t, "")
	code, _, errOut := kothd(t, "replay", "7", "0", "--config", cfg)
	if code != 1 || !strings.Contains(errOut, "7") || strings.Contains(errOut, "config.yaml: no such file") {
		t.Errorf("replay 7 0 --config: exit %d, %q", code, errOut)
	}
	code, _, errOut = kothd(t, "replay", "--config", cfg, "7", "--", "-3")
	if code != 2 || !strings.Contains(errOut, `GAME is a game number from 0 in play order, not "-3"`) {
		t.Errorf("replay -- -3: exit %d, %q", code, errOut)
	}
	code, out, errOut := kothd(t, "status", "--challenge", "forty", "--config", cfg)
	if code != 0 || !strings.Contains(out, "forty") || strings.Contains(out, "ruins") {
		t.Errorf("status --challenge forty: exit %d, %q %q", code, out, errOut)
	}
}

// Invalid values are refused before anything runs, with a message saying what is wrong.
func TestInvalidValuesRefused(t *testing.T) {
	cfg := testConfig(t, "")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"once", "--games", "-5", "--config", cfg}, 2, `invalid value "-5" for flag -games: must be a whole number above zero`},
		{[]string{"once", "--games", "0"}, 2, "must be a whole number above zero"},
		{[]string{"once", "--seed", "-1"}, 2, `invalid value "-1" for flag -seed`},
		{[]string{"once", "--gmes", "5"}, 2, "flag provided but not defined: -gmes (did you mean --games?)"},
		{[]string{"daemon", "--log-format", "xml"}, 2, "must be one of text, json"},
		{[]string{"daemon", "--log-level", "loud"}, 2, "must be one of debug, info, warn, error"},
		{[]string{"replay", "1"}, 2, "needs RUN GAME, got 1 argument(s)"},
		{[]string{"replay", "x", "0"}, 2, `RUN is a run number`},
		{[]string{"status", "extra"}, 2, `takes no arguments, got "extra"`},
		{[]string{"record"}, 2, "needs DIR"},
		{[]string{"bench", "--config", cfg}, 2, "bench needs --snapshot DIR, or --live"},
		{[]string{"bench", "--live", "--snapshot", "x"}, 2, "exclude each other"},
		{[]string{"once", "--challenge", "fourty", "--config", cfg}, 1, `no challenge named "fourty" in ` + cfg + `; the challenges are: forty, ruins (did you mean "forty"?)`},
		{[]string{"status", "--challenge", "fourty", "--config", cfg}, 1, `the challenges are: forty, ruins`},
		{[]string{"bench", "--snapshot", "x", "--challenge", "fourty", "--config", cfg}, 1, `the challenges are: forty, ruins`},
		{[]string{"bench", "--snapshot", "x", "--config", cfg}, 1, `name the challenges to bench, or all (the challenges are: forty, ruins)`},
	} {
		code, out, errOut := kothd(t, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("kothd %s: exit %d (want %d)\nstderr %q\nwant it to contain %q", strings.Join(tc.args, " "), code, tc.code, errOut, tc.want)
		}
		if out != "" {
			t.Errorf("kothd %s printed on stdout: %q", strings.Join(tc.args, " "), out)
		}
		if tc.code == 2 && !strings.Contains(errOut, "Run 'kothd "+tc.args[0]+" -h' for usage.") {
			t.Errorf("kothd %s: no hint at -h: %q", strings.Join(tc.args, " "), errOut)
		}
	}
}

// A misspelt engine in the config stops every command with file:line and the nearest name.
func TestConfigEngineChecked(t *testing.T) {
	cfg := testConfig(t, "  - name: dice\n    question_id: 1\n    engine: fourty\n")
	code, _, errOut := kothd(t, "once", "--config", cfg)
	if code != 1 || !strings.Contains(errOut, cfg+`:7: challenge dice: unknown engine "fourty" (did you mean "forty"?)`) {
		t.Errorf("exit %d, %q", code, errOut)
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := kothd(t, "version")
	if code != 0 || !strings.HasPrefix(out, "kothd ") || !strings.Contains(out, "go1.") {
		t.Errorf("version: exit %d, %q", code, out)
	}
}

func TestEnginesListsProtocols(t *testing.T) {
	code, out, _ := kothd(t, "engines")
	if code != 0 || !strings.Contains(out, "mafia") || !strings.Contains(out, "dirfiles") {
		t.Errorf("engines: exit %d, %q", code, out)
	}
}

// A misspelt engine option is refused at load, before anything is fetched or built.
func TestConfigOptionsChecked(t *testing.T) {
	cfg := testConfig(t, "  - name: we\n    question_id: 169235\n    engine: whiteelephant\n    options: {winning_scor: 20}\n")
	code, _, errOut := kothd(t, "status", "--config", cfg)
	if code != 1 || !strings.Contains(errOut, cfg+`:8: unknown key "winning_scor" in options of challenge we (did you mean "winning_score"?)`) {
		t.Errorf("exit %d, %q", code, errOut)
	}
}

// check prints what an answer's author needs, from the bundled snapshot, with the
// repository's config; arguments are checked first.
func TestCheckCommand(t *testing.T) {
	code, out, errOut := kothd(t, "check", "forty", "178066", "--config", "../../config.yaml", "--snapshot", "../../testdata/snapshot")
	if code != 0 || !strings.Contains(out, `answer 178066 by jdoe_1999 to forty: "QuotaBot"`) ||
		!strings.Contains(out, "NOT ENTERED:") || !strings.Contains(out, "SyntaxError") {
		t.Errorf("check 178066: exit %d\n%s%s", code, out, errOut)
	}
	code, _, errOut = kothd(t, "check", "forty", "abc")
	if code != 2 || !strings.Contains(errOut, `ANSWER_ID is the number in the answer's link`) {
		t.Errorf("check forty abc: exit %d, %q", code, errOut)
	}
	code, _, errOut = kothd(t, "check", "--config", testConfig(t, ""), "fourty", "1")
	if code != 1 || !strings.Contains(errOut, `the challenges are: forty, ruins (did you mean "forty"?)`) {
		t.Errorf("check fourty: exit %d, %q", code, errOut)
	}
}

// version shows the module version and the VCS revision the build recorded.
func TestVersionText(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/kothd/kothd", Version: "v1.2.3"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "5930d07252bbdeadbeef"}, {Key: "vcs.time", Value: "2026-11-24T02:24:57Z"}, {Key: "vcs.modified", Value: "true"}}}
	want := "kothd v1.2.3 (github.com/kothd/kothd, revision 5930d07252bb of 2026-11-24T02:24:57Z, with local changes, go1.26.8)"
	if got := versionText(bi); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
