package referee

import (
	"os"
	"strings"
	"testing"
)

// docs/referee.md shows the example referee whole: the copy a host reads is the one the
// cycle test plays.
func TestDocsShowTheExampleReferee(t *testing.T) {
	doc, err := os.ReadFile("../../docs/referee.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("examples/rps/referee.py")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(doc), "```python\n")
	block, _, _ = strings.Cut(block, "```")
	if !ok || block != string(src) {
		t.Error("docs/referee.md's python block is not examples/rps/referee.py: paste the file in again")
	}
	if n := strings.Count(string(src), "\n"); n >= 100 {
		t.Errorf("the example referee has %d lines; the docs promise fewer than 100", n)
	}
}
