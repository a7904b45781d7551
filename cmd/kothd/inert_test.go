package main

import (
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// What an answer controls – its author's name, its heading, its classes' names, the text of
// its exceptions – reaches the host's terminal through once, status and check. None of it
// may carry a control sequence there (an OSC that sets the window's title, one that
// rewrites the screen) or start a line of its own (a forged log record). Real sandbox,
// real store, a snapshot in the API's wire format.
func TestAnswerWordsInertOnTheTerminal(t *testing.T) {
	dir := t.TempDir()
	const evil = "\x1b]0;pwned\x07\r\nlevel=ERROR msg=forged \u202eevil"
	code := `class Crasher(Bot):
    def make_throw(self, scores, last_round):
        raise ValueError("\x1b]0;pwned\x07\r\nlevel=ERROR msg=forged \u202eevil")
        yield True
`
	body := "<h1>Crasher" + evil + "</h1>\n\n<pre><code>" + strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(code) + "</code></pre>\n"
	items := []map[string]any{{
		"answer_id": 900001, "question_id": 177765, "creation_date": 1549000000, "last_activity_date": 1549000000, "score": 1,
		"body": body, "owner": map[string]any{"user_id": 7, "display_name": "Mallory" + evil, "user_type": "registered"},
	}}
	raw, _ := json.Marshal(map[string]any{"items": items, "has_more": false, "quota_max": 10000, "quota_remaining": 9000})
	snap := filepath.Join(dir, "snap")
	if err := os.MkdirAll(filepath.Join(snap, "codegolf", "177765"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(snap, "codegolf", "177765", "answers.1.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	repo, err := os.ReadFile("../../config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := regexp.MustCompile(`(?m)^data_dir:.*$`).ReplaceAllString(string(repo), "data_dir: "+filepath.Join(dir, "data"))
	cfg = regexp.MustCompile(`(?m)^output_dir:.*$`).ReplaceAllString(cfg, "output_dir: "+filepath.Join(dir, "out"))
	cfgPath := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}

	outputs := map[string]string{}
	c, out, errOut := kothd(t, "once", "--config", cfgPath, "--snapshot", snap, "--challenge", "forty", "--games", "2", "--seed", "1")
	if c != 0 {
		t.Fatalf("once: exit %d\n%s%s", c, out, errOut)
	}
	outputs["once"] = out + errOut
	_, out, errOut = kothd(t, "status", "--config", cfgPath, "--challenge", "forty")
	outputs["status"] = out + errOut
	c, out, errOut = kothd(t, "check", "--config", cfgPath, "--snapshot", snap, "forty", "900001")
	if c != 0 {
		t.Fatalf("check: exit %d\n%s%s", c, out, errOut)
	}
	outputs["check"] = out + errOut
	for cmd, o := range outputs {
		if strings.ContainsAny(o, "\x1b\x07\r\u202e") {
			t.Errorf("%s printed a control character of the answer's:\n%q", cmd, o)
		}
		// once and status give each answer one line; check shows a reason's lines (a
		// traceback, a build log) as a block indented under the bot, so none of them can
		// pass for a line of kothd's.
		for _, l := range strings.Split(o, "\n") {
			if strings.Contains(l, "level=ERROR msg=forged") && !strings.Contains(l, "Mallory") &&
				(cmd != "check" || !strings.HasPrefix(l, "      ")) {
				t.Errorf("%s printed the answer's forged line as a line of its own:\n%s", cmd, o)
			}
		}
		// The words are there, made visible.
		for _, want := range []string{"Mallory␛]0;pwned␇␍␊level=ERROR msg=forged ⟨U+202E⟩evil"} {
			if !strings.Contains(o, want) {
				t.Errorf("%s lacks %q:\n%s", cmd, want, o)
			}
		}
		if testing.Verbose() {
			t.Logf("%s:\n%s", cmd, o)
		}
	}
}

// The text log quotes what the answer controls (slog's text handler quotes a value with a
// control, a space or a quote, and escapes controls, line breaks and bidi characters in
// it): one record stays one line with no control in it, in the message and in attributes.
func TestTextLogQuotesAnswerWords(t *testing.T) {
	const evil = "Mallory\x1b]0;pwned\x07\r\nlevel=ERROR msg=forged \u202eevil\u009b2J"
	var b strings.Builder
	var c common
	l := c.logger(&b, slog.LevelInfo)
	l.Warn("rejected "+evil, "author", evil, "reason", evil)
	out := b.String()
	if strings.Count(out, "\n") != 1 || strings.ContainsAny(strings.TrimSuffix(out, "\n"), "\x1b\x07\r\n\u202e\u009b") {
		t.Errorf("text log record %q", out)
	}
}
