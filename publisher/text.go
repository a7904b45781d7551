package publisher

import (
	"fmt"
	"html"
	"strings"
)

// Participants' words (bot names, authors, titles, reasons, fault texts) go on a page that
// GitHub renders as GitHub Flavored Markdown. They must render as the characters they hold:
// no links, images, HTML, emphasis or page structure, and nothing shown as an entity code.

// wordJoiner (U+2060) is invisible and joins its neighbours; placed inside "http:",
// "www." and after "@" it keeps GFM's extended autolinks (bare URLs, www. names, e-mail
// addresses) from forming, since each needs those characters side by side.
const wordJoiner = "\u2060"

// text makes a line of participant-controlled text inert: every ASCII punctuation
// character backslash-escaped (CommonMark renders an escaped character as itself, so
// `\&` cannot start an entity and `\<` cannot start a tag), line breaks made spaces, and
// autolinks broken with a word joiner.
func text(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\r", " ", "\n", " ").Replace(s)
	var b strings.Builder
	b.Grow(len(s) + len(s)/4)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ':' || (c == '.' && i >= 3 && strings.EqualFold(s[i-3:i], "www")):
			b.WriteString(wordJoiner) // "http⁠:", "www⁠."
		}
		if isASCIIPunct(c) {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
		if c == '@' {
			b.WriteString(wordJoiner) // "a@⁠b.com"
		}
	}
	return b.String()
}

func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

// cell makes participant-controlled text safe inside a markdown table cell: one line, no
// table pipes, no markup, at most 300 characters (cut on a character boundary).
func cell(s string) string {
	if r := []rune(s); len(r) > 300 {
		s = string(r[:300]) + "…"
	}
	return text(s)
}

// inHTML are characters a markdown renderer might still act on next to raw HTML; as
// numeric entities they display unchanged (inside raw HTML entities are decoded once, by
// the browser, so they are not shown as codes).
var inHTML = strings.NewReplacer("\n", "&#10;", "\r", "", "[", "&#91;", "]", "&#93;", "(", "&#40;", ")", "&#41;",
	"`", "&#96;", "*", "&#42;", "_", "&#95;", "|", "&#124;", "!", "&#33;", ":", "&#58;", "@", "&#64;", ".", "&#46;")

// preText is multi-line participant text for a one-line <pre> element.
func preText(s string) string {
	return inHTML.Replace(html.EscapeString(strings.TrimSpace(s)))
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Text is text for callers outside the package (tests that look for participants' words
// on a page).
func Text(s string) string { return text(s) }
