package scraper

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// resolveLanguage maps a header's language spelling to a key of langs (key → aliases),
// ignoring case and spaces. It follows the same steps as runner.ResolveLanguage (a test
// keeps them in agreement): the spelling as written, against every key and alias; then
// without "(remarks)"/"[remarks]"; then dropping version components one at a time
// ("Python 3.6.1" → "Python 3.6" → "Python 3", "C++17" → "C++"). The exact form wins, so
// "Python 2" and "Python 3" stay apart. When two entries claim one spelling, the key that
// sorts first wins, so the result never depends on map order.
func resolveLanguage(langs map[string][]string, spelling string) (string, bool) {
	index := languageIndex(langs)
	s := normalizeLanguage(spelling)
	if s == "" {
		return "", false
	}
	if k, ok := index[s]; ok {
		return k, true
	}
	s = normalizeLanguage(dropRemarks(spelling))
	for s != "" {
		if k, ok := index[s]; ok {
			return k, true
		}
		shorter, cut := dropVersion(s)
		if !cut {
			break
		}
		s = shorter
	}
	return "", false
}

func languageIndex(langs map[string][]string) map[string]string {
	keys := sortedKeys(langs)
	index := make(map[string]string, 8*len(keys))
	claim := func(spelling, key string) {
		if n := normalizeLanguage(spelling); n != "" {
			if _, taken := index[n]; !taken {
				index[n] = key
			}
		}
	}
	for _, k := range keys { // keys first: a key is never shadowed by another entry's alias
		claim(k, k)
	}
	for _, k := range keys {
		for _, a := range langs[k] {
			claim(a, k)
		}
	}
	return index
}

func sortedKeys(langs map[string][]string) []string {
	keys := make([]string, 0, len(langs))
	for k := range langs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// knownLanguages names the languages for a rejection message: each key's first alias.
func knownLanguages(langs map[string][]string) string {
	var names []string
	for _, k := range sortedKeys(langs) {
		if a := langs[k]; len(a) > 0 {
			names = append(names, a[0])
		} else {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func unknownLanguage(spelling string, langs map[string][]string) string {
	return fmt.Sprintf("unknown language: %s (known: %s)", spelling, knownLanguages(langs))
}

// normalizeLanguage lower-cases s and removes every space (non-breaking ones included).
func normalizeLanguage(s string) string {
	var b strings.Builder
	for _, r := range s {
		if !unicode.IsSpace(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// dropRemarks removes "(…)" and "[…]" groups; an unclosed bracket drops the rest.
func dropRemarks(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '(' || r == '[':
			depth++
		case (r == ')' || r == ']') && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// dropVersion removes the last version component of a normalised spelling: ".N" or ".x"
// after a digit, else trailing digits. A name made only of digits is left alone.
func dropVersion(s string) (string, bool) {
	if i := strings.LastIndexByte(s, '.'); i > 0 && isDigit(s[i-1]) && isVersionPart(s[i+1:]) {
		return s[:i], true
	}
	j := len(s)
	for j > 0 && isDigit(s[j-1]) {
		j--
	}
	if j == 0 || j == len(s) {
		return s, false
	}
	return s[:j], true
}

func isVersionPart(s string) bool {
	if s == "x" {
		return true
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
