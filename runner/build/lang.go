package build

import "github.com/kothd/kothd/config"

// ResolveLanguage maps a header's language spelling ("Python 3", "C (gcc)", "node.js") to
// a key of the table, case- and space-insensitively; ok is false for unknown languages.
// The rules are config.ResolveLanguage's.
func ResolveLanguage(langs map[string]config.Language, spelling string) (key string, ok bool) {
	return config.ResolveLanguage(config.AliasesOf(langs), spelling)
}
