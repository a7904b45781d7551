package runner

import "kothd/config"

// ResolveLanguage maps a header's language spelling ("Python 3", "C (gcc)", "node.js") to
// a key of the table, case- and space-insensitively; ok is false for unknown languages.
// The rules are config.ResolveLanguage's.
func ResolveLanguage(langs map[string]config.Language, spelling string) (key string, ok bool) {
	aliases := make(map[string][]string, len(langs))
	for k, l := range langs {
		aliases[k] = l.Aliases
	}
	return config.ResolveLanguage(aliases, spelling)
}
