package publisher

import (
	"fmt"
	"html"
	"strings"

	"github.com/kothd/kothd/publisher/mdtext"
)

// Participants' words go through mdtext (shared with engines that write markdown).

// wordJoiner is the invisible character mdtext puts inside would-be autolinks.
const wordJoiner = mdtext.WordJoiner

func text(s string) string { return mdtext.Text(s) }

// cell makes participant-controlled text safe inside a markdown table cell: one line, no
// table pipes, no markup, at most 300 characters.
func cell(s string) string { return mdtext.Cell(s, 300) }

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
