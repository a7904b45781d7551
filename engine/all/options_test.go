package all_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/engine/all"
)

// A game's `options:` block is decoded straight into the engine's own options type: the
// fields the run sets (seed, games, concurrency, callbacks: yaml "-") are not options, and
// a config that names one is refused at load with file:line, like any unknown key, and by
// the decoder itself.
func TestOptionsRefuseTheRunsFields(t *testing.T) {
	reg := all.Games()
	known := config.Known{Engines: map[string]config.Engine{}}
	for _, name := range reg.Names() {
		g, _ := reg.Lookup(name)
		known.Engines[name] = config.Engine{Protocol: string(g.Protocol), Options: g.Options, Batched: g.Batched, Games: g.Games}
	}
	checked := 0
	for _, name := range reg.Names() {
		g, _ := reg.Lookup(name)
		if g.Options == nil {
			continue
		}
		typ := reflect.TypeOf(g.Options()).Elem()
		for i := range typ.NumField() {
			f := typ.Field(i)
			if tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); tag != "-" {
				continue
			}
			key := strings.ToLower(f.Name)
			var node yaml.Node
			if err := yaml.Unmarshal([]byte(key+": 1\n"), &node); err != nil {
				t.Fatal(err)
			}
			if _, err := g.DecodeOptions(node.Content[0]); err == nil || !strings.Contains(err.Error(), key) {
				t.Errorf("%s: options %q decoded: %v", name, key, err)
			}
			p := filepath.Join(t.TempDir(), "config.yaml")
			body := "challenges:\n  - name: c\n    engine: " + name + "\n    question_id: 1\n    options:\n      " + key + ": 1\n"
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := config.Load(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Validate(known); err == nil || !strings.Contains(err.Error(), p+`:6: unknown key "`+key+`" in options of challenge c`) {
				t.Errorf("%s: a config with options %q: %v", name, key, err)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no game's options have a field the run sets: nothing was checked")
	}
}
