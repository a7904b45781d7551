package publisher

import (
	"os"
	"path/filepath"
	"testing"
)

func TestChartDump(t *testing.T) {
	dir := os.Getenv("CHART_DUMP")
	if dir == "" {
		t.Skip()
	}
	for name, b := range map[string]*Board{"first": chartFirstRun(), "history": chartHistory(), "field": chartField()} {
		os.WriteFile(filepath.Join(dir, name+".svg"), Forest(b), 0o644)
		os.WriteFile(filepath.Join(dir, name+".history.svg"), HistorySVG(b), 0o644)
		os.WriteFile(filepath.Join(dir, name+".md"), Markdown(b), 0o644)
	}
}
