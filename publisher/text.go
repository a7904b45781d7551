package publisher

import (
	"fmt"
	"html"
	"strings"

	"github.com/kothd/kothd/internal/mdtext"
)

// Participants' words go through mdtext (shared with engines that write markdown).

// wordJoiner is the invisible character mdtext puts inside would-be autolinks.
const wordJoiner = mdtext.WordJoiner

func text(s string) string { return mdtext.Text(s) }

// cell makes participant-controlled text safe inside a markdown table cell: one line, no
// table pipes, no markup, at most 300 characters.
func cell(s string) string { return mdtext.Cell(s, 300) }

// preText is multi-line participant text for a one-line <pre> element inside a raw HTML
// block, where markdown is not parsed: HTML-escaped, invisible characters made visible,
// and line breaks as &#10; (a blank line would end the HTML block and let markdown in).
func preText(s string) string {
	s = html.EscapeString(mdtext.Visible(strings.TrimSpace(s)))
	return strings.NewReplacer("\r\n", "&#10;", "\r", "&#10;", "\n", "&#10;").Replace(s)
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
