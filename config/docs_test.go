package config

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// docs/config.md documents every key the config accepts: a key added to the types without a
// line in the reference fails here.
func TestReferenceDocumentsEveryKey(t *testing.T) {
	b, err := os.ReadFile("../docs/config.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	var walk func(t reflect.Type, where string)
	walk = func(typ reflect.Type, where string) {
		for name, ft := range yamlFields(typ) {
			if !strings.Contains(doc, "| `"+name+"` |") {
				t.Errorf("docs/config.md has no row for %s%s", where, name)
			}
			for ft.Kind() == reflect.Slice || ft.Kind() == reflect.Map || ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct && ft.PkgPath() == typ.PkgPath() {
				walk(ft, where+name+".")
			}
		}
	}
	walk(reflect.TypeOf(Config{}), "")
}

// The README and docs link only to files that exist in the repository, and nothing points
// outside it.
func TestDocsLinksStayInTheRepository(t *testing.T) {
	files := []string{"../README.md"}
	err := filepath.WalkDir("../docs", func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	link := regexp.MustCompile(`\]\(([^)#\s]+)`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "../shared") || strings.Contains(string(b), "shared/specs") {
			t.Errorf("%s points outside the repository (shared/)", f)
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") {
				continue
			}
			p := filepath.Join(filepath.Dir(f), target)
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s links to %s, which does not exist", f, target)
			}
		}
	}
}
