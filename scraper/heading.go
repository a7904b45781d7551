package scraper

import (
	"regexp"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// heading is the text of the first h1, else h2, else h3, with struck-out text removed
// (participants strike out a bot's old name: "<s>Old</s> New, Python 3") and runs of
// spaces collapsed.
func heading(doc *goquery.Document) string {
	for _, h := range []string{"h1", "h2", "h3"} {
		if sel := doc.Find(h).First(); sel.Length() > 0 {
			sel = sel.Clone()
			sel.Find("s, del, strike").Remove()
			return collapseSpaces(sel.Text())
		}
	}
	return ""
}

// headingText is the whole text of the first h1, else h2, else h3, struck-out words
// included, with runs of spaces collapsed: what the originals' scrapers read as an
// answer's title (Ruins names an answer's module after it, and that name orders the bots).
func headingText(doc *goquery.Document) string {
	for _, h := range []string{"h1", "h2", "h3"} {
		if sel := doc.Find(h).First(); sel.Length() > 0 {
			return collapseSpaces(sel.Text())
		}
	}
	return ""
}

func collapseSpaces(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// Separators between a bot's name and its language, strongest first. Within one kind the
// rightmost part that names a known language wins ("Hello, World, Python 3").
var headingSeparators = []*regexp.Regexp{
	regexp.MustCompile(`\s*,\s*`),
	regexp.MustCompile(`\s+[-|]\s+|\s*[–—]\s*`),
}

var trailingRemark = regexp.MustCompile(`^(.*?\S)\s*[(\[]([^()\[\]]+)[)\]]$`)
var inLanguage = regexp.MustCompile(`^(.*\S)\s+in\s+(\S.*)$`)

// splitHeading reads a "Name, Language" heading. It is generous about the separator
// ("Randy, Python 2", "Robin Hood - C++", "Robin Hood – C++", "Randy (Python 2)", "Randy in
// Go", "Python 3, Randy") and exact about the language: a part counts only when it resolves
// to a configured language. key is "" when no part does; lang is then the text that most
// likely was meant as the language ("" when the heading has no separator at all).
func splitHeading(h string, langs map[string][]string) (name, lang, key string) {
	h = strings.TrimSpace(h)
	var guessName, guessLang string
	for _, sep := range headingSeparators {
		parts := sep.Split(h, -1)
		if len(parts) < 2 {
			continue
		}
		for i := range parts {
			parts[i] = trimPart(parts[i])
		}
		for i := len(parts) - 1; i >= 0; i-- {
			k, ok := resolveLanguage(langs, parts[i])
			if !ok {
				continue
			}
			name := strings.Join(parts[:i], ", ")
			if name == "" {
				name = strings.Join(parts[i+1:], ", ")
			}
			return name, parts[i], k
		}
		if guessLang == "" {
			guessName, guessLang = strings.Join(parts[:len(parts)-1], ", "), parts[len(parts)-1]
		}
	}
	if m := trailingRemark.FindStringSubmatch(h); m != nil {
		lang := trimPart(m[2])
		if k, ok := resolveLanguage(langs, lang); ok {
			return trimPart(m[1]), lang, k
		}
		if guessLang == "" {
			guessName, guessLang = trimPart(m[1]), lang
		}
	}
	if m := inLanguage.FindStringSubmatch(h); m != nil {
		lang := trimPart(m[2])
		if k, ok := resolveLanguage(langs, lang); ok {
			return trimPart(m[1]), lang, k
		}
	}
	if guessLang != "" {
		return guessName, guessLang, ""
	}
	return trimPart(h), "", ""
}

// trimPart removes spaces and sentence punctuation around a heading part.
func trimPart(s string) string {
	return strings.Trim(s, " \t.:;!*_`\"'")
}
