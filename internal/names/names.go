// Package names compares bot names the way people see them, so that an answer cannot
// enter a name that passes for another's: "GoTo20Bоt" (with a Cyrillic о) is the same
// name as "GoTo20Bot", and so are "ＧｏＴｏ２０Ｂｏｔ", "Go\u200bTo20Bot", "goto20bot" and
// "GoTo-20 Bot".
//
// Two names are the same when their keys are: the name in compatibility form (NFKC:
// fullwidth letters, ligatures, superscripts…), without default-ignorable characters
// (zero-width spaces and joiners, bidi controls, variation selectors), reduced to its
// confusables skeleton (Unicode UTS #39: every character replaced by the prototype it can
// be mistaken for), case-folded, keeping only letters, digits and marks (so spacing and
// punctuation do not tell names apart, as before). Case is compared both ways: the
// skeleton of the name as written (Greek capital Α, Β look like Latin A, B; capital I
// looks like l) and of the name in lower case ("BotI" and "Boti" differ only in case).
package names

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/mtibben/confusables"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/unicode/runenames"
)

// keys returns the forms under which name is compared (see the package comment). A name
// with no letter or digit is compared as written (marked so it cannot meet a real key),
// the empty name with nothing: its keys are "".
func keys(name string) [2]string {
	n := norm.NFKC.String(name)
	n = strings.Map(func(r rune) rune {
		if ignorable(r) {
			return -1
		}
		return r
	}, n)
	fold := cases.Fold()
	k := [2]string{
		visible(fold.String(confusables.Skeleton(n))),
		visible(fold.String(confusables.Skeleton(fold.String(n)))),
	}
	for i := range k {
		if k[i] == "" && name != "" {
			k[i] = "\x00" + name
		}
	}
	return k
}

// ignorable approximates Unicode's Default_Ignorable_Code_Point (which Go's tables do not
// carry): format characters (zero-width space, joiners, bidi controls, soft hyphen),
// variation selectors and the other default-ignorables (Hangul fillers, …). UTS #39 drops
// them before taking the skeleton since Unicode 15.1; the confusables table used here is
// older, so this is done here.
func ignorable(r rune) bool {
	return unicode.In(r, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}

// visible keeps letters, digits and marks.
func visible(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.In(r, unicode.L, unicode.N, unicode.M) {
			return r
		}
		return -1
	}, s)
}

// Same reports whether two names would pass for each other.
func Same(a, b string) bool {
	ka, kb := keys(a), keys(b)
	for _, x := range ka {
		for _, y := range kb {
			if x == y && x != "" {
				return true
			}
		}
	}
	return false
}

// Listed reports whether name is, or passes for, one of list (the host's exclusions: a
// look-alike of an excluded name is excluded too).
func Listed(list []string, name string) bool {
	for _, l := range list {
		if l == name || Same(l, name) {
			return true
		}
	}
	return false
}

// Claims is the names already entered in a challenge, each with who entered it. The zero
// value is ready to use.
type Claims struct {
	byKey map[string]claim
}

type claim struct {
	name, by string
}

// Claim records name as entered by `by` (e.g. "answer 12 by Ann", "a built-in bot").
func (c *Claims) Claim(name, by string) {
	if c.byKey == nil {
		c.byKey = map[string]claim{}
	}
	for _, k := range keys(name) {
		if _, taken := c.byKey[k]; !taken && k != "" {
			c.byKey[k] = claim{name, by}
		}
	}
}

// Clash says why name cannot be entered: it is, or looks like, a name claimed before. It
// is "" when the name is free.
func (c *Claims) Clash(name string) string {
	for _, k := range keys(name) {
		if first, taken := c.byKey[k]; taken && k != "" {
			return DuplicateReason(name, first.name, first.by)
		}
	}
	return ""
}

// DuplicateReason is the "not entered" reason for name when earlier, entered by `by`, has
// the same key. A look-alike's reason names the name it imitates and the characters that
// make it differ, which the reader may not be able to see.
func DuplicateReason(name, earlier, by string) string {
	if name == earlier {
		return fmt.Sprintf("duplicate bot name %q: %s entered it first; pick another name", name, by)
	}
	return fmt.Sprintf("duplicate bot name %q: it looks like %q, which %s entered first%s; pick another name",
		name, earlier, by, differences(name, earlier))
}

// differences lists (at most three of) the characters of name that earlier does not have
// and that are not plain printable ASCII, by code point and Unicode name.
func differences(name, earlier string) string {
	var out []string
	seen := map[rune]bool{}
	for _, r := range name {
		if seen[r] || strings.ContainsRune(earlier, r) || (r >= ' ' && r < unicode.MaxASCII) {
			continue
		}
		seen[r] = true
		if len(out) == 3 {
			out = append(out, "…")
			break
		}
		desc := runenames.Name(r)
		if desc == "" {
			desc = "unnamed character"
		}
		out = append(out, fmt.Sprintf("U+%04X %s", r, desc))
	}
	if len(out) == 0 {
		return ""
	}
	return " (it has " + strings.Join(out, ", ") + ")"
}
