package config

import (
	"sort"
	"strings"
	"unicode"
)

// ResolveLanguage maps a header's language spelling ("Python 3", "C (gcc)", "node.js") to a
// key of aliases (language key → header spellings), ignoring case and spaces; ok is false
// for unknown languages. The scraper (reading headers) and the runner share it.
//
// A spelling is tried as written first, against every key and alias. Participants decorate
// the language name, so two looser forms are tried after that, each only when the previous
// found nothing: without parenthesised or bracketed remarks ("JavaScript (Node.js)" →
// "JavaScript"), then with version numbers dropped one component at a time ("Python 3.6.1" →
// "Python 3.6" → "Python 3", "C++17" → "C++", "Java 8" → "Java"). Because the exact form
// wins, a table that lists "Python 2" and "Python 3" separately keeps them apart.
//
// When two entries claim the same spelling (a mistake in the table), the key that sorts
// first wins, so the answer never depends on map order.
func ResolveLanguage(aliases map[string][]string, spelling string) (key string, ok bool) {
	index := languageIndex(aliases)
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

// Aliases returns the language table as key → header spellings: the one alias map, which
// the scraper (reading headers) and the runner resolve against.
func (c *Config) Aliases() map[string][]string { return AliasesOf(c.Languages) }

// AliasesOf returns a language table as key → header spellings.
func AliasesOf(langs map[string]Language) map[string][]string {
	out := make(map[string][]string, len(langs))
	for k, l := range langs {
		out[k] = l.Aliases
	}
	return out
}

// SortedKeys returns the keys of a language alias table in order.
func SortedKeys(aliases map[string][]string) []string {
	keys := make([]string, 0, len(aliases))
	for k := range aliases {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// languageIndex maps every normalised key and alias to its key. Keys are visited in sorted
// order and the first claim stands, which makes clashes deterministic.
func languageIndex(aliases map[string][]string) map[string]string {
	keys := SortedKeys(aliases)
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
		for _, a := range aliases[k] {
			claim(a, k)
		}
	}
	return index
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
