package publisher

import (
	"encoding/json"
	"fmt"
)

// Files is the set of files published for one board, by name relative to the sink's root:
// the page, its JSON, its chart, and the run's entry in the archive of past boards.
func Files(b *Board) map[string][]byte {
	j := JSON(b)
	return map[string][]byte{
		b.Challenge + ".md":                Markdown(b),
		b.Challenge + ".json":              j,
		ChartName(b.Challenge):             SVG(b),
		ArchiveName(b.Challenge, b.Run.ID): j,
	}
}

// ChartName is the chart's file name, beside the page (which embeds it by this name).
func ChartName(challenge string) string { return challenge + ".svg" }

// ArchiveName is where a run's board is kept for good.
func ArchiveName(challenge string, run int64) string {
	return fmt.Sprintf("%s/runs/%d.json", challenge, run)
}

// JSON renders the board for tools (docs/leaderboard-schema.json).
func JSON(b *Board) []byte {
	out, _ := json.MarshalIndent(b, "", "  ") // Build keeps every number finite
	return append(out, '\n')
}
