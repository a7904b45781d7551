package pyclass

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/kothd/kothd/engine"
)

type appenderArgs struct{ N int }

func (a *appenderArgs) AppendJSON(b []byte) []byte { return append(b, `{"n":7}`...) }

// The request line written without reflection is the one encoding/json would write, for
// arguments that encode themselves and for any other.
func TestAppendRequestIsValidJSON(t *testing.T) {
	calls := []engine.Call{
		{Game: 3, Method: "new", Args: map[string]int{"seat": 2}},
		{Game: 4, Method: "odd \"name\"\n", Args: &appenderArgs{}},
		{Game: 5, Method: "end"},
	}
	b, err := appendRequest(nil, nil, 0.25, 1.5, calls, []int{0, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		T, W  float64
		Calls []struct {
			G int
			M string
			A json.RawMessage
		}
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	if got.T != 0.25 || got.W != 1.5 || len(got.Calls) != 3 || got.Calls[1].M != "odd \"name\"\n" ||
		string(got.Calls[0].A) != `{"seat":2}` || string(got.Calls[1].A) != `{"n":7}` || string(got.Calls[2].A) != "null" {
		t.Fatalf("decoded %+v from %s", got, b)
	}
	if _, err := appendRequest(nil, nil, 1, 1, []engine.Call{{Args: func() {}}}, []int{0}); err == nil {
		t.Error("unencodable arguments gave no error")
	}
}

type intsArgs []int32

func (a intsArgs) AppendInts(b []int32) []int32 { return append(b, a...) }

// Calls whose arguments are integers (or none) travel packed: the methods listed once, each
// call's game, method index, count (-1: none) and integers, little-endian, in base64. A
// batch with any other argument, or with no integers at all, is written as JSON.
func TestAppendRequestPacked(t *testing.T) {
	calls := []engine.Call{
		{Game: 70000, Method: "start", Args: intsArgs{1, 1, 4, 0, -3, 39}},
		{Game: 2, Method: "next", Args: intsArgs{}},
		{Game: 3, Method: "end"},
		{Game: 4, Method: "start", Args: intsArgs{0, 1, 2, 5, 5}},
	}
	b, err := appendRequest(nil, &packer{}, 0.25, 1.5, calls, []int{0, 1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		T, W float64
		M    []string
		P    string
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	raw, err := base64.StdEncoding.DecodeString(got.P)
	if err != nil || len(raw)%4 != 0 {
		t.Fatalf("p %q: %v", got.P, err)
	}
	var ints []int32
	for i := 0; i < len(raw); i += 4 {
		ints = append(ints, int32(binary.LittleEndian.Uint32(raw[i:])))
	}
	want := []int32{70000, 0, 6, 1, 1, 4, 0, -3, 39, 2, 1, 0, 3, 2, -1, 4, 0, 5, 0, 1, 2, 5, 5}
	if got.T != 0.25 || got.W != 1.5 || !slices.Equal(got.M, []string{"start", "next", "end"}) || !slices.Equal(ints, want) {
		t.Fatalf("decoded t=%v w=%v m=%q ints=%v from %s", got.T, got.W, got.M, ints, b)
	}
	for _, batch := range [][]engine.Call{
		{{Game: 1, Method: "start", Args: intsArgs{1}}, {Game: 2, Method: "new", Args: map[string]int{"seat": 2}}},
		{{Game: 1, Method: "end"}, {Game: 2, Method: "end"}},
		// A game number past 2^31 would wrap in 32 bits (found in review).
		{{Game: 1<<31 + 5, Method: "next", Args: intsArgs{3}}},
	} {
		idx := []int{0, 1}[:len(batch)]
		b, err := appendRequest(nil, &packer{}, 1, 1, batch, idx)
		if err != nil || !strings.Contains(string(b), `"calls":[`) || strings.Contains(string(b), `"p":`) {
			t.Errorf("%+v: %s (%v), want the JSON form", batch, b, err)
		}
	}
}

// Reply lines: booleans read on the fast path, anything else by the decoder, and a line that
// is not exactly n replies refused.
func TestParseReplies(t *testing.T) {
	cases := []struct {
		line string
		n    int
		ok   bool
		want []string // R, or "f:" + F
	}{
		{`{"replies":[{"r":true},{"r":false}]}`, 2, true, []string{"true", "false"}},
		{`{"replies":[{"r":true},{"f":"timeout","d":"x"},{"r":[1,2]}]}`, 3, true, []string{"true", "f:timeout", "[1,2]"}},
		{`{"replies":[{"r":true}]}`, 2, false, nil},
		{`{"replies":[{"r":true},{"r":true}]}`, 1, false, nil},
		{`{"replies":[{"r":true}]}garbage`, 1, false, nil},
		{`{"replies":[{"r":true}{"r":true}]}`, 2, false, nil},
		{`hello`, 1, false, nil},
		{`{"replies":[]}`, 0, true, nil},
		{`{"replies":[{"r":null},{"r":0},{"r":7},{"r":42},{"r":99},{"r":true}]}`, 6, true, []string{"null", "0", "7", "42", "99", "true"}},
		// Not small integers as the harness writes them: read by the decoder, as they are.
		{`{"replies":[{"r":100},{"r":07},{"r":-1}]}`, 3, false, nil},
		{`{"replies":[{"r":100},{"r":-1},{"r":1.5},{"r":{"p":"x"}},{"r":3}]}`, 5, true, []string{"100", "-1", "1.5", `{"p":"x"}`, "3"}},
		{`{"replies":[{"r":3 },{"r":4}]}`, 2, true, []string{"3", "4"}},
		{`{"replies":[{"r":3}{"r":4}]}`, 2, false, nil},
		{`{"replies":[{"r":5`, 1, false, nil},
		// A batch of boolean results, a character each.
		{`{"b":"1001"}`, 4, true, []string{"true", "false", "false", "true"}},
		{`{"b":""}`, 0, true, nil},
		{`{"b":"100"}`, 4, false, nil},
		{`{"b":"10012"}`, 4, false, nil},
		{`{"b":"1021"}`, 4, false, nil},
		{`{"b":"1001"}x`, 4, false, nil},
		{`{"b":"1001`, 4, false, nil},
	}
	var buf []wireReply
	for _, c := range cases {
		got, ok := parseReplies([]byte(c.line), c.n, buf)
		if ok != c.ok {
			t.Errorf("%s (n=%d): ok %v, want %v", c.line, c.n, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		for i, w := range c.want {
			g := string(got[i].R)
			if got[i].F != "" {
				g = "f:" + got[i].F
			}
			if g != w {
				t.Errorf("%s: reply %d is %s, want %s", c.line, i, g, w)
			}
		}
		buf = got
	}
	if string(jsonTrue) != "true" || string(jsonFalse) != "false" || string(jsonNull) != "null" || string(jsonSmall[7]) != "7" {
		t.Fatalf("the shared results were written into: %s %s %s %s", jsonTrue, jsonFalse, jsonNull, jsonSmall[7])
	}
}

// BenchmarkAppendRequest writes the request line of a batch of 64 forty "start" calls; b.N
// counts calls.
func BenchmarkAppendRequest(b *testing.B) {
	calls := make([]engine.Call, 64)
	idx := make([]int, len(calls))
	for i := range calls {
		calls[i] = engine.Call{Game: 1000 + i, Method: "start", Args: benchStart{}}
		idx[i] = i
	}
	var buf []byte
	b.ReportAllocs()
	for i := 0; i < b.N; i += len(calls) {
		buf, _ = appendRequest(buf[:0], nil, 1, 3, calls, idx)
	}
}

// BenchmarkAppendRequestPacked writes the same batch packed (engine.IntsAppender): b.N
// counts calls.
func BenchmarkAppendRequestPacked(b *testing.B) {
	calls := make([]engine.Call, 64)
	idx := make([]int, len(calls))
	for i := range calls {
		calls[i] = engine.Call{Game: 1000 + i, Method: "start", Args: intsArgs{0, 1, 3, 10, 22, 5, 0, 31, 2, 8, 9}}
		idx[i] = i
	}
	var buf []byte
	pk := &packer{}
	b.ReportAllocs()
	for i := 0; i < b.N; i += len(calls) {
		buf, _ = appendRequest(buf[:0], pk, 1, 3, calls, idx)
	}
}

// BenchmarkParseRepliesPacked reads the one-string reply of a batch of 64 boolean replies;
// b.N counts replies.
func BenchmarkParseRepliesPacked(b *testing.B) {
	line := []byte(`{"b":"1` + strings.Repeat("0", 63) + `"}`)
	var out []wireReply
	b.ReportAllocs()
	for i := 0; i < b.N; i += 64 {
		var ok bool
		if out, ok = parseReplies(line, 64, out); !ok {
			b.Fatal("refused")
		}
	}
}

// BenchmarkParseReplies reads the reply line of a batch of 64 boolean replies; b.N counts
// replies.
func BenchmarkParseReplies(b *testing.B) {
	line := []byte(`{"replies":[{"r":true}` + strings.Repeat(`,{"r":false}`, 63) + `]}`)
	var out []wireReply
	b.ReportAllocs()
	for i := 0; i < b.N; i += 64 {
		var ok bool
		if out, ok = parseReplies(line, 64, out); !ok {
			b.Fatal("refused")
		}
	}
}
