// Package mdtext makes participants' words inert in GitHub Flavored Markdown. It is a leaf
// package so that engines writing markdown of their own (a table appendix) and the
// publisher escape the same way.
package mdtext

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Participants' words (bot names, authors, titles, reasons, fault texts) go on a page that
// GitHub renders as GitHub Flavored Markdown. They must render as the characters they hold:
// no links, images, HTML, emphasis or page structure, and nothing shown as an entity code.
// Escaping is contextual: a character gets a backslash only where GFM would act on it, so
// the raw markdown stays readable ("Pool: 24 games, 20 per bot", not "Pool\: 24 games\,").

// WordJoiner (U+2060) is invisible and joins its neighbours; placed inside "http:",
// "www." and after "@" it keeps GFM's extended autolinks (bare URLs, www. names, e-mail
// addresses) from forming, since each needs those characters side by side. After the
// first colon of ":word:" it also keeps GitHub's emoji shortcodes (":smile:") from forming.
const WordJoiner = "\u2060"

// Text makes a line of participant-controlled text inert: characters that are invisible
// or turn text around made visible (Visible), line breaks made spaces, leading blanks
// dropped (four would start a code block), and backslash escapes where GFM would
// otherwise act: always before \ ` * [ ] < & | ~ $; before _ unless letters or digits
// stand on both sides (then it can neither open nor close emphasis); at the start of the
// text before what starts a block there (# > - + = and the dot or parenthesis of "1. ");
// before a # that closes the text (an ATX heading's closing sequence). Autolinks and
// emoji shortcodes are broken with a word joiner. The text may be placed anywhere on a
// line, at its start included, and inside a table cell.
func Text(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\r", " ", "\n", " ").Replace(s)
	s = strings.TrimLeft(Visible(s), " \t")
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	digits := 0 // leading digits seen so far (an ordered list item starts "12." or "12)")
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf { // letters of other scripts, the visible forms of controls
			b.WriteByte(c)
			digits = -1
			continue
		}
		start := i == 0
		switch c {
		case '\\', '`', '*', '[', ']', '<', '&', '|', '~', '$':
			b.WriteByte('\\')
		case '_':
			if !(isWord(lastRune(s[:i])) && isWord(firstRune(s[i+1:]))) {
				b.WriteByte('\\')
			}
		case '#':
			if start || strings.Trim(s[i:], "#") == "" && i > 0 && s[i-1] == ' ' {
				b.WriteByte('\\')
			}
		case '>', '-', '+', '=':
			if start {
				b.WriteByte('\\')
			}
		case '.', ')':
			if digits > 0 && digits == i && (i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\t') {
				b.WriteByte('\\') // "1\. item" is not a list item (an item needs the blank; "2.5" is none)
			} else if c == '.' && i >= 3 && strings.EqualFold(s[i-3:i], "www") {
				b.WriteString(WordJoiner) // "www⁠."
			}
		case ':':
			if i+1 < len(s) && s[i+1] == '/' {
				b.WriteString(WordJoiner) // "http⁠://"
			}
		}
		if c >= '0' && c <= '9' && digits == i {
			digits++
		} else if digits == i {
			digits = -1
		}
		b.WriteByte(c)
		switch c {
		case ':':
			if shortcode(s[i+1:]) {
				b.WriteString(WordJoiner) // ":⁠smile:"
			}
		case '@':
			if next := firstRune(s[i+1:]); unicode.IsLetter(next) || unicode.IsDigit(next) {
				b.WriteString(WordJoiner) // "a@⁠b.com", "@⁠someone"
			}
		}
	}
	return b.String()
}

// shortcode says whether s starts with the rest of an emoji shortcode: "smile:", "+1:".
func shortcode(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ':':
			return i > 0
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '+', c == '-':
		default:
			return false
		}
	}
	return false
}

func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

// Cell is Text for a table cell: at most max characters (cut on a character boundary,
// marked with an ellipsis); pipes are escaped by Text.
func Cell(s string, max int) string {
	return Text(Cut(Visible(s), max))
}

// Cut keeps at most max characters of s, cut on a character boundary and marked with an
// ellipsis.
func Cut(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max]) + "…"
}

// Visible makes the characters a reader could not see, or that change how the text
// around them reads, visible: the C0 controls and DEL as their Unicode control pictures
// (NUL as ␀, ESC as ␛), line and tab excepted (callers decide about those: Text makes
// them spaces, a <pre> keeps them); C1 controls, format characters (bidirectional
// overrides and isolates U+202A–202E and U+2066–2069, LRM/RLM/ALM, zero-width space, word
// joiner, BOM, soft hyphen, tag characters) and the line and paragraph separators as
// ⟨U+XXXX⟩. Zero-width (non-)joiners U+200C and U+200D stay: scripts such as Persian and
// Devanagari and emoji sequences need them, and they cannot reorder text. Bytes that are
// not UTF-8 become U+FFFD. Diacritics stack: more than MaxMarks of them on one letter
// (Zalgo text, whose marks pile up over the lines around it) keep the first MaxMarks and
// show the rest as their number, ⟨+N marks⟩ (see stackable).
func Visible(s string) string {
	if !needsVisible(s) {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	b.Grow(len(s) + 16)
	marks, dropped := 0, 0
	for _, r := range s {
		switch {
		case stackable(r):
			if marks++; marks > MaxMarks {
				dropped++
				continue
			}
		case joins(r):
		default:
			marks = 0
			if dropped > 0 {
				b.WriteString("⟨+" + strconv.Itoa(dropped) + " marks⟩")
				dropped = 0
			}
		}
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteRune(r)
		case r < 0x20:
			b.WriteRune(0x2400 + r) // ␀ … ␟
		case r == 0x7F:
			b.WriteRune('\u2421') // ␡
		case Hidden(r):
			b.WriteString("⟨U+")
			b.WriteString(strings.ToUpper(hex(r)))
			b.WriteString("⟩")
		default:
			b.WriteRune(r)
		}
	}
	if dropped > 0 {
		b.WriteString("⟨+" + strconv.Itoa(dropped) + " marks⟩")
	}
	return b.String()
}

// MaxMarks is how many stackable marks on one letter Visible keeps: Vietnamese stacks two,
// an emoji keycap one.
const MaxMarks = 4

// stackable reports the combining marks Zalgo text piles up: the generic diacritic blocks
// (U+0300–036F, U+1AB0–1AFF, U+1DC0–1DFF, U+20D0–20FF, U+FE20–FE2F), Cyrillic's combining
// signs (U+0483–0489) and every enclosing mark. A script's own vowel signs and marks
// (Burmese, Devanagari, Hebrew points: several on a letter in common words) are not
// counted.
func stackable(r rune) bool {
	return r >= 0x300 && r <= 0x36F || r >= 0x483 && r <= 0x489 || r >= 0x1AB0 && r <= 0x1AFF ||
		r >= 0x1DC0 && r <= 0x1DFF || r >= 0x20D0 && r <= 0x20FF || r >= 0xFE20 && r <= 0xFE2F || unicode.Is(unicode.Me, r)
}

// joins reports what may sit between stacked marks without ending the stack: the
// zero-width (non-)joiners and the variation selectors, which a pile could otherwise
// slip between every few marks.
func joins(r rune) bool {
	return r == 0x200C || r == 0x200D || r >= 0xFE00 && r <= 0xFE0F || r >= 0xE0100 && r <= 0xE01EF
}

// Hidden reports a character Visible shows by its code (C1 controls, format characters but
// the zero-width joiners, line and paragraph separators).
func Hidden(r rune) bool {
	if r == 0x200C || r == 0x200D {
		return false
	}
	return r >= 0x80 && r <= 0x9F || unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029
}

func needsVisible(s string) bool {
	marks := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' && c != '\r' && c != '\t' || c == 0x7F {
				return true
			}
			marks = 0
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || Hidden(r) {
			return true
		}
		switch {
		case stackable(r):
			if marks++; marks > MaxMarks {
				return true
			}
		case joins(r):
		default:
			marks = 0
		}
		i += n
	}
	return false
}

func hex(r rune) string {
	const digits = "0123456789abcdef"
	var buf [8]byte
	i := len(buf)
	for r > 0 || i > len(buf)-4 {
		i--
		buf[i] = digits[r&0xF]
		r >>= 4
	}
	return string(buf[i:])
}
