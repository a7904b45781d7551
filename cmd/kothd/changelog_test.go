package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// CHANGELOG.md says the tag scheme and keeps an Unreleased section on top, and every release
// heading is a tag of that scheme (vMAJOR.MINOR.PATCH), so `go install …@vX.Y.Z` and
// `kothd version` name the same thing. The issue found neither a changelog nor a scheme.
func TestChangelogFollowsTheTagScheme(t *testing.T) {
	b, err := os.ReadFile("../../CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !strings.Contains(s, "`vMAJOR.MINOR.PATCH`") || !strings.Contains(s, "### Upgrading") {
		t.Error("CHANGELOG.md does not state the tag scheme and what an upgrade asks of a host")
	}
	heads := regexp.MustCompile(`(?m)^## (.*)$`).FindAllStringSubmatch(s, -1)
	if len(heads) == 0 || heads[0][1] != "Unreleased" {
		t.Fatalf("the first section is not Unreleased: %v", heads)
	}
	release := regexp.MustCompile(`^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*) — \d{4}-\d{2}-\d{2}$`)
	for _, h := range heads[1:] {
		if !release.MatchString(h[1]) {
			t.Errorf("release heading %q is not \"vX.Y.Z — YYYY-MM-DD\"", h[1])
		}
	}
}
