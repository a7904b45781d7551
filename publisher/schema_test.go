package publisher

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

// validate checks a decoded JSON value against the subset of JSON Schema 2020-12 that
// docs/leaderboard-schema.json uses. A keyword it does not know is an error, so the schema
// cannot grow a rule this validator silently skips.
func validate(root, schema map[string]any, v any, path string) []string {
	if ref, ok := schema["$ref"].(string); ok {
		def, _ := root["$defs"].(map[string]any)[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		if def == nil {
			return []string{path + ": unknown $ref " + ref}
		}
		return validate(root, def, v, path)
	}
	var errs []string
	fail := func(f string, a ...any) { errs = append(errs, path+": "+fmt.Sprintf(f, a...)) }
	for k, rule := range schema {
		switch k {
		case "$schema", "$id", "title", "description", "$defs":
		case "type":
			if !hasType(v, rule.(string)) {
				fail("%v is not of type %s", v, rule)
			}
		case "const":
			if !reflect.DeepEqual(v, rule) {
				fail("%v is not %v", v, rule)
			}
		case "enum":
			found := false
			for _, e := range rule.([]any) {
				found = found || reflect.DeepEqual(v, e)
			}
			if !found {
				fail("%v not in %v", v, rule)
			}
		case "required":
			obj, _ := v.(map[string]any)
			for _, name := range rule.([]any) {
				if _, ok := obj[name.(string)]; !ok {
					fail("lacks %s", name)
				}
			}
		case "properties", "additionalProperties":
			obj, ok := v.(map[string]any)
			if !ok || k == "additionalProperties" && schema["properties"] != nil {
				continue // checked with properties
			}
			props, _ := schema["properties"].(map[string]any)
			for name, val := range obj {
				if ps, ok := props[name]; ok {
					errs = append(errs, validate(root, ps.(map[string]any), val, path+"."+name)...)
					continue
				}
				switch extra := schema["additionalProperties"].(type) {
				case bool:
					if !extra {
						fail("unexpected property %s", name)
					}
				case map[string]any:
					errs = append(errs, validate(root, extra, val, path+"."+name)...)
				}
			}
		case "items":
			for i, e := range asArray(v) {
				errs = append(errs, validate(root, rule.(map[string]any), e, fmt.Sprintf("%s[%d]", path, i))...)
			}
		case "prefixItems":
			arr := asArray(v)
			for i, s := range rule.([]any) {
				if i < len(arr) {
					errs = append(errs, validate(root, s.(map[string]any), arr[i], fmt.Sprintf("%s[%d]", path, i))...)
				}
			}
		case "minItems", "maxItems":
			n, lim := len(asArray(v)), int(rule.(float64))
			if k == "minItems" && n < lim || k == "maxItems" && n > lim {
				fail("%d items, %s %d", n, k, lim)
			}
		case "minimum", "exclusiveMinimum", "exclusiveMaximum":
			x, ok := v.(float64)
			lim := rule.(float64)
			if ok && (k == "minimum" && x < lim || k == "exclusiveMinimum" && x <= lim || k == "exclusiveMaximum" && x >= lim) {
				fail("%v breaks %s %v", x, k, lim)
			}
		case "pattern":
			if s, ok := v.(string); ok && !regexp.MustCompile(rule.(string)).MatchString(s) {
				fail("%q does not match %s", s, rule)
			}
		case "format":
			if s, ok := v.(string); ok && rule == "date-time" {
				if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
					fail("%q is not a date-time", s)
				}
			}
		case "oneOf":
			matched := 0
			for _, s := range rule.([]any) {
				if len(validate(root, s.(map[string]any), v, path)) == 0 {
					matched++
				}
			}
			if matched != 1 {
				fail("matches %d of oneOf", matched)
			}
		default:
			fail("the test's validator does not know the keyword %q", k)
		}
	}
	return errs
}

func hasType(v any, t string) bool {
	switch t {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "null":
		return v == nil
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		x, ok := v.(float64)
		return ok && x == math.Trunc(x)
	}
	return false
}

func asArray(v any) []any { a, _ := v.([]any); return a }

func loadSchema(t *testing.T) map[string]any {
	raw, err := os.ReadFile("../docs/leaderboard-schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
	return schema
}

func TestJSONMatchesSchema(t *testing.T) {
	schema := loadSchema(t)
	in := sampleInput()
	in.Previous = Build(sampleInput())
	in.RunID = 4
	in.Result.Rows[0].Score, in.Result.Rows[0].Wins = 9, 360 // Leader falls: a move
	in.Result.Rows[0], in.Result.Rows[4] = in.Result.Rows[4], in.Result.Rows[0]
	edited := time.Date(2026, 11, 20, 13, 2, 0, 0, time.UTC)
	in.Changes = append(in.Changes, Change{Kind: "edited", AnswerID: 12, Title: "A|B", Author: "Jane", Edited: &edited})
	in.History = []HistoryRun{{Run: 3, Date: in.Date, Scores: map[string]float64{"Leader": 30}}}
	moved := false
	for _, r := range Build(in).Rows {
		moved = moved || r.Move != nil && r.Move.Kind != "new"
	}
	if !moved {
		t.Fatal("the second board has no move to check against the schema")
	}
	bare := sampleInput() // nothing changed, nothing rejected: empty lists, not nulls
	bare.Changes, bare.NotEntered, bare.Result.Summary = nil, nil, nil
	settled, spent := sampleInput(), sampleInput() // adaptive runs: run.ending
	settled.Ending = &Ending{Reason: EndSettled, Confidence: 0.95, Games: 4000, Budget: 10000, MinGames: 2000, Batch: 1000}
	spent.Ending = &Ending{Reason: EndBudget, Confidence: 0.95, Games: 4000, Budget: 4000, MinGames: 2000, Batch: 1000, Overlaps: [][2]int{{2, 3}}}
	lowered := sampleInput() // played again with fewer games in flight: run.lowered
	lowered.Lowered = []Lowered{{Bot: "Leader", InFlight: 10000, MemoryMB: 1024, Next: 625}, {Bot: "Leader", InFlight: 625, MemoryMB: 1024, Next: 39}}
	if md := string(Markdown(Build(lowered))); !strings.Contains(md, "Played again with 39 games in flight: Leader ran out of memory (memory_mb 1024) with 625 games") {
		t.Errorf("the board does not say the run was played again:\n%s", md)
	}
	for _, b := range []*Board{Build(sampleInput()), Build(in), Build(bare), Build(settled), Build(spent), Build(lowered)} {
		var doc any
		if err := json.Unmarshal(JSON(b), &doc); err != nil {
			t.Fatal(err)
		}
		if errs := validate(schema, schema, doc, "$"); len(errs) > 0 {
			t.Errorf("board JSON breaks its schema:\n%s", strings.Join(errs, "\n"))
		}
	}
	// The validator is not a rubber stamp: a board with a stringly number fails it.
	var doc map[string]any
	json.Unmarshal(JSON(Build(in)), &doc)
	doc["rows"].([]any)[0].(map[string]any)["score"] = "9.0"
	doc["rows"].([]any)[1].(map[string]any)["interval"] = "19.2–25.3"
	delete(doc["run"].(map[string]any), "seed")
	if errs := validate(schema, schema, any(doc), "$"); len(errs) != 3 {
		t.Errorf("a broken board gave %d errors, want 3: %v", len(errs), errs)
	}
	json.Unmarshal(JSON(Build(spent)), &doc)
	ending := doc["run"].(map[string]any)["ending"].(map[string]any)
	ending["reason"], ending["overlaps"] = "tired", []any{"3–5"}
	if errs := validate(schema, schema, any(doc), "$"); len(errs) != 3 { // the reason; the range's type and its length
		t.Errorf("a broken ending gave %d errors, want 3: %v", len(errs), errs)
	}
	// A published board reads back into the same Board (the store republishes from it).
	for _, b := range []*Board{Build(in), Build(spent)} {
		var back Board
		if err := json.Unmarshal(JSON(b), &back); err != nil || string(JSON(&back)) != string(JSON(b)) {
			t.Errorf("board does not survive a JSON round trip: %v", err)
		}
	}
}
