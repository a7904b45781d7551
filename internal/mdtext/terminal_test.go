package mdtext

import (
	"strings"
	"testing"
)

func TestTerminal(t *testing.T) {
	for in, want := range map[string]string{
		"GoTo20Bot":                         "GoTo20Bot",
		"\x1b]0;pwned\x07Bot":               "␛]0;pwned␇Bot",
		"Bot\nlevel=ERROR msg=\"forged\"":   "Bot␊level=ERROR msg=\"forged\"",
		"a\r\nb\tc":                         "a␍␊b c",
		"\u202eevil\u2066x\u2069":           "⟨U+202E⟩evil⟨U+2066⟩x⟨U+2069⟩",
		"del\x7f c1\u009b[2J":               "del␡ c1⟨U+009B⟩[2J",
		"sep\u2028line":                     "sep⟨U+2028⟩line",
		"bad\xffutf8":                       "bad\uFFFDutf8",
		"Ωmega Prádo 名前 \u200dkeeps joiner": "Ωmega Prádo 名前 \u200dkeeps joiner",
	} {
		got := Terminal(in)
		if got != want {
			t.Errorf("Terminal(%q) = %q, want %q", in, got, want)
		}
		if strings.ContainsAny(got, "\x1b\x07\r\n\x7f\u009b\u202e") {
			t.Errorf("Terminal(%q) = %q keeps a control", in, got)
		}
	}
}
