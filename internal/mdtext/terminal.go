package mdtext

import "strings"

// lineBreaks shows the characters Visible leaves to its callers as their control pictures.
var lineBreaks = strings.NewReplacer("\r", "\u240d", "\n", "\u240a", "\t", " ")

// Terminal makes participant-controlled text (a bot's name, an author, a heading, a
// reason, a fault's text) inert on a terminal and in a line-oriented log: what Visible
// shows (ESC, BEL and the other C0 controls, DEL, C1 controls, bidirectional overrides and
// isolates, invisible format characters) and line breaks too, CR as ␍ and LF as ␊ (a tab
// becomes a space). The result is one line that sets no window title, moves no cursor,
// turns no text around and starts no line of its own (a forged "level=ERROR" record).
// `kothd once`, `status`, `check` and `replay` print every such word through it.
func Terminal(s string) string {
	return lineBreaks.Replace(Visible(s))
}
