package main

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// optionFlags is kothd bench's repeatable --option KEY=VALUE: it overrides one key of the
// challenge's `options:` block for the bench only (say, a Bank Heist tournament shorter than
// the 1,000 games of the config, so that a bench of several tournaments takes a minute). The
// engine decodes the result as strictly as the config's own block.
type optionFlags []string

func (o *optionFlags) String() string { return strings.Join(*o, ",") }

func (o *optionFlags) Set(s string) error {
	k, _, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return fmt.Errorf("want KEY=VALUE, got %q", s)
	}
	*o = append(*o, s)
	return nil
}

// overrideOptions sets each KEY=VALUE of o in node, a challenge's `options:` block (empty
// or a mapping), adding the keys it lacks. VALUE is read as YAML: 50 is a number.
func overrideOptions(node *yaml.Node, o optionFlags) error {
	if len(o) == 0 {
		return nil
	}
	switch {
	case node.Kind == 0:
		*node = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	case node.Kind == yaml.DocumentNode && len(node.Content) == 1:
		node = node.Content[0]
	}
	if node.Kind != yaml.MappingNode {
		return fmt.Errorf("--option: the challenge's options are not a mapping")
	}
	for _, kv := range o {
		k, v, _ := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(v), &doc); err != nil {
			return fmt.Errorf("--option %s: %w", kv, err)
		}
		val := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
		if len(doc.Content) == 1 {
			val = doc.Content[0]
		}
		set := false
		for i := 0; i+1 < len(node.Content); i += 2 {
			if node.Content[i].Value == k {
				node.Content[i+1], set = val, true
			}
		}
		if !set {
			node.Content = append(node.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k}, val)
		}
	}
	return nil
}
