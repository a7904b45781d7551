package ruins

import (
	"strings"
	"unicode"
)

// ModuleName is the module an answer was saved as by the original scraper (§1.4):
// `<author>__<title>` in lower case, each part with runs of whitespace replaced by `_` and
// cut at the first character that is neither `_` nor alphanumeric, prefixed with `a__`
// when it does not start with a letter. Modules were imported in sorted file-name order,
// which is the competitor order that breaks ties and shapes seeded runs; sorting by this
// name reproduces it.
func ModuleName(author, title string) string {
	m := strings.ToLower(sanitize(author) + "__" + sanitize(title))
	if r := []rune(m); len(r) == 0 || !unicode.IsLetter(r[0]) {
		m = "a__" + m
	}
	return m
}

func sanitize(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			if !space {
				b.WriteByte('_')
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(r)
	}
	s = b.String()
	if i := strings.IndexFunc(s, func(r rune) bool {
		return r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}); i >= 0 {
		s = s[:i]
	}
	return s
}
