package config

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// unknownKeys walks the document against the Go types it decodes into and reports every
// mapping key no field declares, with its line and the nearest known key. yaml.v3's own
// KnownFields says neither where in the file (only a line, without the file) nor what was
// meant; a host who wrote `gmes: 5` needs both, and needs all such mistakes at once.
func unknownKeys(file string, n *yaml.Node, t reflect.Type, where string) []error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.DocumentNode {
		var errs []error
		for _, c := range n.Content {
			errs = append(errs, unknownKeys(file, c, t, where)...)
		}
		return errs
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return unknownKeys(file, n.Alias, t, where)
	}
	if t == reflect.TypeOf(yaml.Node{}) {
		return nil // decoded later by its owner (an engine's options)
	}
	if err := typeError(file, n, t, where); err != nil {
		return []error{err}
	}
	var errs []error
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return nil // empty (null)
		}
		fields := yamlFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == "<<" { // a merge key: its mapping is checked as this one
				errs = append(errs, unknownKeys(file, v, t, where)...)
				continue
			}
			ft, ok := fields[k.Value]
			if !ok {
				names := make([]string, 0, len(fields))
				for name := range fields {
					names = append(names, name)
				}
				msg := fmt.Sprintf("%s:%d: unknown key %q%s", file, k.Line, k.Value, where)
				if s := nearest(k.Value, names); s != "" {
					msg += fmt.Sprintf(" (did you mean %q?)", s)
				}
				errs = append(errs, fmt.Errorf("%s", msg))
				continue
			}
			errs = append(errs, unknownKeys(file, v, ft, keyWithin(where, k.Value, v))...)
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return nil
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			errs = append(errs, unknownKeys(file, n.Content[i+1], t.Elem(), fmt.Sprintf(" in %s", n.Content[i].Value))...)
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return nil
		}
		for _, c := range n.Content {
			errs = append(errs, unknownKeys(file, c, t.Elem(), within(where, "", c))...)
		}
	}
	return errs
}

// durationType is checked as a duration, not as the integer it is.
var durationType = reflect.TypeOf(Duration(0))

// typeError reports a value of the wrong kind for its field, with the file, the line and
// the key: yaml.v3 would say "line 5: cannot unmarshal !!str `x` into int" without either,
// and it quietly truncates `games: 1.5` to 1. An empty value (null) is the zero value.
// where is " <key> in <place>" for a keyed value (keyWithin).
func typeError(file string, n *yaml.Node, t reflect.Type, where string) error {
	if n.Kind == yaml.AliasNode || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null") {
		return nil
	}
	what := strings.TrimPrefix(where, " ")
	if what == "" {
		what = "the config"
	}
	bad := func(want string) error {
		got := n.Value
		switch n.Kind {
		case yaml.MappingNode:
			got = "a mapping"
		case yaml.SequenceNode:
			got = "a list"
		default:
			got = fmt.Sprintf("%q", got)
		}
		return fmt.Errorf("%s:%d: %s must be %s, not %s", file, n.Line, what, want, got)
	}
	scalar := n.Kind == yaml.ScalarNode
	switch {
	case t == durationType:
		if !scalar {
			return bad("a duration such as 250ms, 2s or 5m")
		}
		if _, err := time.ParseDuration(n.Value); err != nil {
			return bad("a duration such as 250ms, 2s or 5m")
		}
	case t == reflect.TypeOf(yaml.Node{}):
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		if !scalar || n.ShortTag() != "!!int" {
			return bad("a whole number")
		}
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		if !scalar || (n.ShortTag() != "!!int" && n.ShortTag() != "!!float") {
			return bad("a number")
		}
	case t.Kind() == reflect.Bool:
		if !scalar || n.ShortTag() != "!!bool" {
			return bad("true or false")
		}
	case t.Kind() == reflect.String:
		if !scalar {
			return bad("text")
		}
	case t.Kind() == reflect.Struct || t.Kind() == reflect.Map:
		if n.Kind != yaml.MappingNode && n.Kind != yaml.DocumentNode {
			return bad("a mapping of keys to values")
		}
	case t.Kind() == reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return bad("a list")
		}
	}
	return nil
}

// keyWithin is within, with the key itself in front for messages about its value
// ("games in challenge forty").
func keyWithin(where, key string, v *yaml.Node) string {
	if v.Kind == yaml.MappingNode {
		return within(where, key, v) // a section: its own keys name themselves
	}
	return " " + key + where
}

// within names the place a nested mapping sits in, for messages: a challenge by its name,
// a section by its key and what holds it ("in limits of challenge forty").
func within(where, key string, v *yaml.Node) string {
	if v.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(v.Content); i += 2 {
			if v.Content[i].Value == "name" {
				return " in challenge " + v.Content[i+1].Value
			}
		}
	}
	switch {
	case key == "":
		return where
	case where == "":
		return " in " + key
	default:
		return " in " + key + " of " + strings.TrimPrefix(where, " in ")
	}
}

// yamlFields maps a struct's YAML keys to their types.
func yamlFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = f.Type
	}
	return out
}

// nearest returns the candidate closest to s by edit distance, or "" when none is close
// enough to be a likely misspelling (more than a third of the word changed).
func nearest(s string, candidates []string) string {
	best, bestD := "", len(s)/3+2
	for _, c := range candidates {
		d := levenshtein(strings.ToLower(s), strings.ToLower(c))
		if d < bestD || (d == bestD && best != "" && c < best) {
			best, bestD = c, d
		}
	}
	return best
}

// Nearest is nearest for other packages' messages (an unknown challenge or engine name).
func Nearest(s string, candidates []string) string { return nearest(s, candidates) }

// levenshtein counts the single-character insertions, deletions and substitutions that
// turn a into b.
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
