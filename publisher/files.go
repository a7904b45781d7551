package publisher

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Files is the set of files published for one board, by name relative to the sink's root:
// the page, its JSON, its two charts (the run; the bots that moved over the last runs),
// and the run's entry in the archive of past boards.
func Files(b *Board) map[string][]byte {
	j := JSON(b)
	return map[string][]byte{
		b.Challenge + ".md":                Markdown(b),
		b.Challenge + ".json":              j,
		ChartName(b.Challenge):             Forest(b),
		HistoryChartName(b.Challenge):      HistorySVG(b),
		ArchiveName(b.Challenge, b.Run.ID): j,
	}
}

// ChartName is the run's chart's file name, beside the page (which embeds it by this name).
func ChartName(challenge string) string { return challenge + ".svg" }

// ArchiveName is where a run's board is kept for good.
func ArchiveName(challenge string, run int64) string {
	return fmt.Sprintf("%s/runs/%d.json", challenge, run)
}

// JSON renders the board for tools (docs/leaderboard-schema.json). Strings are exact (a
// tool matching a bot's name gets the name), but the file holds no raw control or format
// character: each is written as a \uXXXX escape, so the file shown as text (a terminal,
// GitHub's file view) cannot be turned around by a bidirectional override in a name.
func JSON(b *Board) []byte {
	out, _ := json.MarshalIndent(b, "", "  ") // Build keeps every number finite
	return append(escapeHidden(out), '\n')
}

// escapeHidden writes every control and format character of a JSON text as a \uXXXX
// escape (a pair for those beyond the BMP). They can only be inside strings: JSON's own
// syntax is ASCII.
func escapeHidden(js []byte) []byte {
	if !bytes.ContainsFunc(js, hiddenInJSON) {
		return js
	}
	out := make([]byte, 0, len(js)+64)
	for len(js) > 0 {
		r, n := utf8.DecodeRune(js)
		if hiddenInJSON(r) {
			for _, u := range utf16.Encode([]rune{r}) {
				out = fmt.Appendf(out, `\u%04x`, u)
			}
		} else {
			out = append(out, js[:n]...)
		}
		js = js[n:]
	}
	return out
}

// hiddenInJSON: controls (DEL and C1; encoding/json escapes C0 already), all format
// characters, the line and paragraph separators.
func hiddenInJSON(r rune) bool {
	return r == 0x7F || r >= 0x80 && r <= 0x9F || unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029
}

// HistoryChartName is the history chart's file name, beside the page. A challenge's name
// has no dot (config), so no challenge's chart can take it.
func HistoryChartName(challenge string) string { return challenge + ".history.svg" }
