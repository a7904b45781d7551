package config

import (
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Changes lists what differs between two configs, as the keys a host wrote: "schedule",
// "github.repo", "languages.go", "challenges.forty.games", "challenges.mafia (added)".
// kothd daemon logs it on a reload, so the journal says what the reload did.
func Changes(old, next *Config) []string {
	var out []string
	diffStruct(reflect.ValueOf(*old), reflect.ValueOf(*next), "", &out, map[string]func(a, b reflect.Value, key string, out *[]string){
		"languages":  diffByKey,
		"challenges": diffChallenges,
	})
	return out
}

// diffStruct compares the exported, yaml-named fields of two structs; special names the
// keys compared their own way.
func diffStruct(a, b reflect.Value, prefix string, out *[]string, special map[string]func(a, b reflect.Value, key string, out *[]string)) {
	t := a.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if !f.IsExported() || name == "" || name == "-" {
			continue
		}
		key := prefix + name
		if fn := special[key]; fn != nil {
			fn(a.Field(i), b.Field(i), key, out)
			continue
		}
		if f.Type == reflect.TypeOf(yaml.Node{}) { // by content: its line numbers move with every edit
			nx, ny := a.Field(i).Interface().(yaml.Node), b.Field(i).Interface().(yaml.Node)
			x, _ := yaml.Marshal(&nx)
			y, _ := yaml.Marshal(&ny)
			if string(x) != string(y) {
				*out = append(*out, key)
			}
			continue
		}
		if f.Type.Kind() == reflect.Struct && !reflect.DeepEqual(a.Field(i).Interface(), b.Field(i).Interface()) &&
			hasYAMLFields(f.Type) {
			diffStruct(a.Field(i), b.Field(i), key+".", out, nil)
			continue
		}
		if !reflect.DeepEqual(a.Field(i).Interface(), b.Field(i).Interface()) {
			*out = append(*out, key)
		}
	}
}

func hasYAMLFields(t reflect.Type) bool {
	for i := range t.NumField() {
		if t.Field(i).IsExported() && t.Field(i).Tag.Get("yaml") != "" {
			return true
		}
	}
	return false
}

// diffByKey compares two maps entry by entry.
func diffByKey(a, b reflect.Value, key string, out *[]string) {
	var names []string
	for _, k := range a.MapKeys() {
		names = append(names, k.String())
	}
	for _, k := range b.MapKeys() {
		if !a.MapIndex(k).IsValid() {
			names = append(names, k.String())
		}
	}
	slices.Sort(names)
	for _, n := range names {
		x, y := a.MapIndex(reflect.ValueOf(n)), b.MapIndex(reflect.ValueOf(n))
		switch {
		case !y.IsValid():
			*out = append(*out, key+"."+n+" (removed)")
		case !x.IsValid():
			*out = append(*out, key+"."+n+" (added)")
		case !reflect.DeepEqual(x.Interface(), y.Interface()):
			*out = append(*out, key+"."+n)
		}
	}
}

// diffChallenges compares challenges by name, key by key.
func diffChallenges(a, b reflect.Value, key string, out *[]string) {
	olds, news := a.Interface().([]Challenge), b.Interface().([]Challenge)
	find := func(list []Challenge, name string) *Challenge {
		for i := range list {
			if list[i].Name == name {
				return &list[i]
			}
		}
		return nil
	}
	for _, o := range olds {
		n := find(news, o.Name)
		if n == nil {
			*out = append(*out, key+"."+o.Name+" (removed)")
			continue
		}
		diffStruct(reflect.ValueOf(o), reflect.ValueOf(*n), key+"."+o.Name+".", out, nil)
	}
	for _, n := range news {
		if find(olds, n.Name) == nil {
			*out = append(*out, key+"."+n.Name+" (added)")
		}
	}
}
