// Package mdtext makes participants' words inert in GitHub Flavored Markdown. It is a leaf
// package so that engines writing markdown of their own (a table appendix) and the
// publisher escape the same way.
package mdtext

import "strings"

// Participants' words (bot names, authors, titles, reasons, fault texts) go on a page that
// GitHub renders as GitHub Flavored Markdown. They must render as the characters they hold:
// no links, images, HTML, emphasis or page structure, and nothing shown as an entity code.

// WordJoiner (U+2060) is invisible and joins its neighbours; placed inside "http:",
// "www." and after "@" it keeps GFM's extended autolinks (bare URLs, www. names, e-mail
// addresses) from forming, since each needs those characters side by side.
const WordJoiner = "\u2060"

// Text makes a line of participant-controlled text inert: every ASCII punctuation
// character backslash-escaped (CommonMark renders an escaped character as itself, so
// `\&` cannot start an entity and `\<` cannot start a tag), line breaks made spaces, and
// autolinks broken with a word joiner.
func Text(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\r", " ", "\n", " ").Replace(s)
	var b strings.Builder
	b.Grow(len(s) + len(s)/4)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ':' || (c == '.' && i >= 3 && strings.EqualFold(s[i-3:i], "www")):
			b.WriteString(WordJoiner) // "http⁠:", "www⁠."
		}
		if isASCIIPunct(c) {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
		if c == '@' {
			b.WriteString(WordJoiner) // "a@⁠b.com"
		}
	}
	return b.String()
}

func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

// Cell is Text for a table cell: at most max characters (cut on a character boundary,
// marked with an ellipsis); pipes are escaped by Text like all punctuation.
func Cell(s string, max int) string {
	if r := []rune(s); len(r) > max {
		s = string(r[:max]) + "…"
	}
	return Text(s)
}
