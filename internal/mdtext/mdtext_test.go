package mdtext

import (
	"bytes"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// Plain words stay plain in the raw markdown: only what GFM would act on is escaped.
func TestTextEscapesOnlyWhatGFMActsOn(t *testing.T) {
	for in, want := range map[string]string{
		"Pool: 24 games, 20 per bot; (mean) 3.5!": "Pool: 24 games, 20 per bot; (mean) 3.5!",
		"O'Brien \"quoted\" #1 bot_name":          "O'Brien \"quoted\" #1 bot_name",
		"_em_ *em* a|b <b> &amp; `c` ~s~ $x$":     `\_em\_ \*em\* a\|b \<b> \&amp; \` + "`c\\`" + ` \~s\~ \$x\$`,
		"# heading":                               `\# heading`,
		"- item":                                  `\- item`,
		"12. item":                                `12\. item`,
		"25.3 (18–35)":                            "25.3 (18–35)",
		"as on 2026-11-26 06:13 UTC: a:b":         "as on 2026-11-26 06:13 UTC: a:b",
		"   > quote":                              `\> quote`,
		"title ##":                                `title \##`,
		"see http://x.example":                    "see http" + WordJoiner + "://x.example",
		"www.x.example":                           "www" + WordJoiner + ".x.example",
		"me@x.example :smile:":                    "me@" + WordJoiner + "x.example :" + WordJoiner + "smile:",
		"NUL\x00 RLO\u202e DEL\x7f":               "NUL␀ RLO⟨U+202E⟩ DEL␡",
	} {
		if got := Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
}

// Whatever the text, GFM renders it as the characters it holds (controls made visible):
// no element comes of it.
func TestTextRendersAsWritten(t *testing.T) {
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	for _, in := range []string{
		"x](http://evil.example) ![i](http://evil.example/p.png) <img src=x> `code` *em* __b__",
		"1) not a list", "+ not a list", "=== not a heading", "--- not a rule", "***", "_ _ _",
		"a_b_c _d_ e__f__g", "[ref]: http://evil.example", "\\*not em\\*", "a\\", "&#39; &amp;",
		"~~struck~~", "$math$", "| a | b |", "```", "    four spaces",
	} {
		var out bytes.Buffer
		if err := md.Convert([]byte("x "+Text(in)+"\n\n"+Text(in)+"\n"), &out); err != nil {
			t.Fatal(err)
		}
		html := out.String()
		if strings.Count(html, "<") != 4 || !strings.HasPrefix(html, "<p>") { // <p>…</p><p>…</p>
			t.Errorf("%q rendered as %s", in, html)
		}
	}
}

func TestVisible(t *testing.T) {
	for in, want := range map[string]string{
		"a\u202eb\u2066c\u200ed\u2060e\ufeff": "a⟨U+202E⟩b⟨U+2066⟩c⟨U+200E⟩d⟨U+2060⟩e⟨U+FEFF⟩",
		"\x00\x1b\u0085\u2028":                "␀␛⟨U+0085⟩⟨U+2028⟩",
		"keep\n\ttabs":                        "keep\n\ttabs",
		"Persian\u200cjoiner 👨\u200d👩":        "Persian\u200cjoiner 👨\u200d👩",
		"bad\xffbyte":                         "bad\uFFFDbyte",
		"\U000E0041tag":                       "⟨U+E0041⟩tag",
	} {
		if got := Visible(in); got != want {
			t.Errorf("Visible(%q) = %q, want %q", in, got, want)
		}
	}
}

// Zalgo text (combining marks piled on a letter) keeps MaxMarks marks a letter and shows
// how many more there were; what scripts and emoji need passes untouched.
func TestVisibleBoundsStackedMarks(t *testing.T) {
	zalgo := "Z" + strings.Repeat("\u0336\u0489", 40) + "algo"
	got := Visible(zalgo)
	if want := "Z\u0336\u0489\u0336\u0489⟨+76 marks⟩algo"; got != want {
		t.Errorf("Visible(zalgo) = %q, want %q", got, want)
	}
	if got := Visible("a" + strings.Repeat("\u0301", 9)); got != "a\u0301\u0301\u0301\u0301⟨+5 marks⟩" {
		t.Errorf("marks at the end: %q", got)
	}
	// Joiners between the marks do not end the pile.
	joined := "Z" + strings.Repeat("\u0336\u0336\u0336\u200d", 20)
	if got := Visible(joined); strings.Count(got, "\u0336") > MaxMarks || !strings.Contains(got, "⟨+56 marks⟩") {
		t.Errorf("Visible(a pile split by joiners) = %q", got)
	}
	for _, s := range []string{"Seán", "Tiếng Việt", "हिन्दी", "1\ufe0f\u20e3", "שָׁלוֹם", "e\u0301\u0302\u0303\u0304", "မျှော်", "ཀྵྼ"} {
		if got := Visible(s); got != s {
			t.Errorf("Visible(%q) = %q, want it untouched", s, got)
		}
	}
	if got := Text(zalgo); strings.Count(got, "\u0336") > 2 {
		t.Errorf("Text kept %d marks of the pile: %q", strings.Count(got, "\u0336"), got)
	}
}
