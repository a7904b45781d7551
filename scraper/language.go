package scraper

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kothd/kothd/config"
)

// resolveLanguage maps a header's language spelling to a key of langs (key → aliases); see
// config.ResolveLanguage.
func resolveLanguage(langs map[string][]string, spelling string) (string, bool) {
	return config.ResolveLanguage(langs, spelling)
}

// knownLanguages names the languages for a rejection message: each key's first alias.
func knownLanguages(langs map[string][]string) string {
	var names []string
	for _, k := range config.SortedKeys(langs) {
		if a := langs[k]; len(a) > 0 {
			names = append(names, a[0])
		} else {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func unknownLanguage(spelling string, langs map[string][]string) string {
	return fmt.Sprintf("unknown language: %s (known: %s)", spelling, knownLanguages(langs))
}
