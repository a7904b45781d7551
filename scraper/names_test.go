package scraper

import (
	"strings"
	"testing"
)

// Answer-level names (the heading's) are compared as people see them: a look-alike of an
// earlier answer's name is refused with a reason naming the name it imitates.
func TestExtractAllRejectsLookAlikeNames(t *testing.T) {
	body := func(h string) string { return "<h1>" + h + ", Bash</h1><pre><code>#!/bin/bash\necho\n</code></pre>" }
	first := ans(100, body("GoTo20Bot"))
	first.Owner.DisplayName = "First"
	lookAlikes := []string{
		"GoTo20B\u043et", // Cyrillic о
		"G\u03bfTo20Bot", // Greek ο
		"\uff27\uff4f\uff34\uff4f\uff12\uff10\uff22\uff4f\uff54", // fullwidth
		"GoTo\u200b20Bot", // zero-width space
		"gotO20bot",       // case
		"GoTo2OBot",       // capital O for zero
	}
	answers := []Answer{first}
	for i, n := range lookAlikes {
		answers = append(answers, ans(int64(101+i), body(n)))
	}
	answers = append(answers, ans(200, body("GoTo21Bot")))
	subs := ExtractAll(answers, mafiaRules)
	if subs[0].Reject != "" || subs[len(subs)-1].Reject != "" {
		t.Fatalf("distinct names refused: %q, %q", subs[0].Reject, subs[len(subs)-1].Reject)
	}
	for i, n := range lookAlikes {
		s := subs[i+1]
		if s.Title != n {
			t.Fatalf("answer %d: title %q, want %q", s.AnswerID, s.Title, n)
		}
		for _, want := range []string{"duplicate bot name", `looks like "GoTo20Bot"`, "answer 100 by First"} {
			if !strings.Contains(s.Reject, want) {
				t.Errorf("%+q: reason %q lacks %q", n, s.Reject, want)
			}
		}
		if len(s.Files) != 0 {
			t.Errorf("%+q: refused answer keeps its files", n)
		}
	}
	if r := subs[1].Reject; !strings.Contains(r, "U+043E CYRILLIC SMALL LETTER O") {
		t.Errorf("the Cyrillic look-alike's reason does not show the letter: %q", r)
	}
	// The earliest post keeps the name, whatever order the answers come in.
	rev := make([]Answer, len(answers))
	for i, a := range answers {
		rev[len(answers)-1-i] = a
	}
	if got := ExtractAll(rev, mafiaRules); got[len(got)-1].Reject != "" || got[len(got)-2].Reject == "" {
		t.Errorf("newest first: the oldest answer was refused (%q) or its look-alike entered", got[len(got)-1].Reject)
	}
}
