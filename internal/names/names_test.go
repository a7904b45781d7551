package names

import (
	"strings"
	"testing"
)

func TestSame(t *testing.T) {
	same := [][2]string{
		{"GoTo20Bot", "GoTo20Bot"},
		{"!!", "!!"},
		{"GoTo20Bot", "GoTo20B\u043et"},      // Cyrillic о
		{"GoTo20Bot", "G\u03bfTo20Bot"},      // Greek ο
		{"ABOT", "\u0391\u0392\u039f\u03a4"}, // Greek capitals ΑΒΟΤ
		{"PayPal", "\u0420ay\u0420al"},       // Cyrillic Р
		{"GoTo20Bot", "\uff27\uff4f\uff34\uff4f\uff12\uff10\uff22\uff4f\uff54"}, // fullwidth
		{"GoTo20Bot", "Go\u200bTo20Bot"},                                        // zero-width space
		{"GoTo20Bot", "GoTo\u200d20\u2060Bot\ufe0f"},                            // joiner, word joiner, variation selector
		{"GoTo20Bot", "\u202eGoTo20Bot"},                                        // bidi override
		{"GoTo20Bot", "goto20bot"},                                              // case
		{"GoTo20Bot", "GOTO20BOT"},
		{"BotI", "Boti"}, // case, though I looks like l
		{"Bot1", "BotI"}, // look alike as written
		{"Bot1", "Botl"},
		{"GoTo20Bot", "GoTo2OBot"},  // digit zero, capital O
		{"Robin Hood", "robinhood"}, // spacing and punctuation, as before
		{"Randy", "R-A-N-D-Y"},
		{"ﬁnder", "finder"},    // ligature
		{"Ⅻ", "XII"},           // roman numeral
		{"café", "cafe\u0301"}, // composed and decomposed
	}
	for _, p := range same {
		if !Same(p[0], p[1]) || !Same(p[1], p[0]) {
			t.Errorf("Same(%+q, %+q) = false, want true (keys %q, %q)", p[0], p[1], keys(p[0]), keys(p[1]))
		}
	}
	differ := [][2]string{
		{"GoTo20Bot", "GoTo21Bot"},
		{"GoTo20Bot", "GoTo20Bots"},
		{"café", "cafe"}, // an accent people see
		{"Bötä", "Bota"},
		{"\u03a9mega", "mega"}, // the old ASCII-only key dropped Ω and made these equal
		{"\u0416uk", "Zhuk"},
		{"!!", "??"}, // no letters: compared as written
		{"", ""},
	}
	for _, p := range differ {
		if Same(p[0], p[1]) {
			t.Errorf("Same(%+q, %+q) = true, want false (keys %q, %q)", p[0], p[1], keys(p[0]), keys(p[1]))
		}
	}
}

func TestClaims(t *testing.T) {
	var c Claims
	c.Claim("GoTo20Bot", "answer 5 by Ann")
	c.Claim("Sheriff", "a built-in bot")
	c.Claim("---", "answer 6 by Bob") // no letters: claims itself only
	if r := c.Clash("GoTo20Bot"); r != `duplicate bot name "GoTo20Bot": answer 5 by Ann entered it first; pick another name` {
		t.Errorf("exact duplicate: %q", r)
	}
	r := c.Clash("GoTo20B\u043et")
	for _, want := range []string{`duplicate bot name "GoTo20Bоt"`, `looks like "GoTo20Bot"`, "answer 5 by Ann", "U+043E CYRILLIC SMALL LETTER O"} {
		if !strings.Contains(r, want) {
			t.Errorf("look-alike reason %q lacks %q", r, want)
		}
	}
	if r := c.Clash("Go\u200bTo20Bot"); !strings.Contains(r, "U+200B ZERO WIDTH SPACE") {
		t.Errorf("zero-width reason %q does not show the invisible character", r)
	}
	if r := c.Clash("SHERIFF"); !strings.Contains(r, `looks like "Sheriff", which a built-in bot entered first`) || strings.Contains(r, "(it has") {
		t.Errorf("case-only reason %q", r)
	}
	if r := c.Clash("---"); !strings.Contains(r, "answer 6 by Bob") {
		t.Errorf("a name without letters entered twice: %q", r)
	}
	for _, free := range []string{"GoTo21Bot", "", "+++", "Sheriffs"} {
		if r := c.Clash(free); r != "" {
			t.Errorf("Clash(%q) = %q, want free", free, r)
		}
	}
}

// A look-alike of a name the host excluded is excluded too.
func TestListed(t *testing.T) {
	exclude := []string{"GoTo20Bot", "!!"}
	for name, want := range map[string]bool{"GoTo20Bot": true, "GoTo20B\u043et": true, "goto 20 bot": true, "!!": true, "GoTo21Bot": false, "??": false} {
		if got := Listed(exclude, name); got != want {
			t.Errorf("Listed(%+q) = %v, want %v", name, got, want)
		}
	}
	if Listed(nil, "x") {
		t.Error("an empty list holds a name")
	}
}
