package pyrand

import (
	"encoding/json"
	"fmt"
	"math/big"
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

// The vectors of specs/ruins.md §3.4.
func TestSpecVectors(t *testing.T) {
	r := NewUint64(0)
	if got := r.Random(); got != 0.8444218515250481 {
		t.Errorf("seed 0 random() = %v", got)
	}
	if got := r.Bits(40); got != 978212965548 {
		t.Errorf("seed 0 getrandbits(40) = %v", got)
	}
	if got, _ := r.RandInt(1, 6); got != 4 {
		t.Errorf("seed 0 randint(1, 6) = %v", got)
	}
	if got, _ := Choice(r, []string{"a", "b", "c", "d", "e", "f", "g"}); got != "a" {
		t.Errorf("seed 0 choice = %v", got)
	}

	r = NewUint64(12345)
	var dice []int
	for range 5 {
		d, _ := r.RandInt(1, 6)
		dice = append(dice, d)
	}
	if !reflect.DeepEqual(dice, []int{4, 6, 1, 3, 3}) {
		t.Errorf("seed 12345 dice = %v", dice)
	}
	if got := r.Random(); got != 0.9317846908693116 {
		t.Errorf("seed 12345 random() after dice = %v", got)
	}

	big100 := new(big.Int).Lsh(big.NewInt(1), 100)
	big100.Add(big100, big.NewInt(7))
	if got := New(big100).Random(); got != 0.41604161323913513 {
		t.Errorf("seed 2^100+7 random() = %v", got)
	}

	r = NewString("K48XMESC")
	if got := r.Bits(32); got != 154154774 {
		t.Errorf("K48XMESC getrandbits(32) = %v", got)
	}
	if got := r.Bits(64); got != 5861872244254627447 {
		t.Errorf("K48XMESC getrandbits(64) = %v", got)
	}

	r = NewUint64(42)
	x := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	r.Shuffle(len(x), func(i, j int) { x[i], x[j] = x[j], x[i] })
	if !reflect.DeepEqual(x, []int{7, 3, 2, 8, 5, 6, 9, 4, 0, 1}) {
		t.Errorf("seed 42 shuffle = %v", x)
	}
}

func TestErrors(t *testing.T) {
	r := NewUint64(1)
	if _, err := r.RandRange(0); err != ErrEmptyRange {
		t.Errorf("randrange(0) error = %v", err)
	}
	if _, err := r.RandInt(3, 2); err != ErrEmptyRange {
		t.Errorf("randint(3, 2) error = %v", err)
	}
	if _, err := Choice(r, []int{}); err != ErrEmptySeq {
		t.Errorf("choice([]) error = %v", err)
	}
	if _, err := r.Sample(3, 4); err != ErrSampleSize {
		t.Errorf("sample(range(3), 4) error = %v", err)
	}
	// None of the failures drew a number: the stream continues as if they had not happened.
	if got, want := r.Random(), NewUint64(1).Random(); got != want {
		t.Errorf("stream moved on errors: %v != %v", got, want)
	}
}

// pyScript prints, for each seed, one JSON line of draws in a fixed order; goDraws makes the
// same draws in Go. Comparing them against the machine's real python3 is the test that
// matters: CPython is the specification.
const pyScript = `
import json, random, sys
for line in sys.stdin:
    kind, text = line.rstrip("\n").split(" ", 1)
    seed = int(text) if kind == "int" else text
    r = random.Random(seed)
    out = {}
    out["random"] = [repr(r.random()) for _ in range(3)]
    out["bits"] = [str(r.getrandbits(k)) for k in (1, 5, 31, 32, 33, 63, 64, 65, 420, 744, 1337)]
    out["below"] = [r.randrange(n) for n in (1, 2, 3, 5, 6, 7, 10, 117, 1000, 2**31 - 1, 2**40 + 3)]
    out["randint"] = [r.randint(1, 6) for _ in range(5)] + [r.randint(-5, 5), r.randint(1, 60), r.randint(1, 1015)]
    out["step"] = [r.randrange(0, 100, 7), r.randrange(50, 0, -3), r.randrange(-10, 10, 4)]
    out["choice"] = r.choice("abcdefghijklmnopqrstuvwxyz")
    x = list(range(23)); r.shuffle(x); out["shuffle"] = x
    out["sample_small"] = r.sample(range(30), 7)
    out["sample_large"] = r.sample(range(1000), 12)
    out["uniform"] = repr(r.uniform(-3.5, 8.25))
    out["after"] = repr(r.random())
    print(json.dumps(out), flush=True)
`

type draws struct {
	Random      []string `json:"random"`
	Bits        []string `json:"bits"`
	Below       []int    `json:"below"`
	RandInt     []int    `json:"randint"`
	Step        []int    `json:"step"`
	Choice      string   `json:"choice"`
	Shuffle     []int    `json:"shuffle"`
	SampleSmall []int    `json:"sample_small"`
	SampleLarge []int    `json:"sample_large"`
	Uniform     string   `json:"uniform"`
	After       string   `json:"after"`
}

// pyRepr formats a float the way Python's repr does (shortest round-trip).
func pyRepr(f float64) string {
	s := fmt.Sprint(f)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

func goDraws(r *Rand) draws {
	var d draws
	for range 3 {
		d.Random = append(d.Random, pyRepr(r.Random()))
	}
	for _, k := range []int{1, 5, 31, 32, 33, 63, 64, 65, 420, 744, 1337} {
		d.Bits = append(d.Bits, r.GetRandBits(k).String())
	}
	for _, n := range []int{1, 2, 3, 5, 6, 7, 10, 117, 1000, 1<<31 - 1, 1<<40 + 3} {
		v, _ := r.RandRange(n)
		d.Below = append(d.Below, v)
	}
	for range 5 {
		v, _ := r.RandInt(1, 6)
		d.RandInt = append(d.RandInt, v)
	}
	for _, ab := range [][2]int{{-5, 5}, {1, 60}, {1, 1015}} {
		v, _ := r.RandInt(ab[0], ab[1])
		d.RandInt = append(d.RandInt, v)
	}
	for _, s := range [][3]int{{0, 100, 7}, {50, 0, -3}, {-10, 10, 4}} {
		v, _ := r.RandRangeStep(s[0], s[1], s[2])
		d.Step = append(d.Step, v)
	}
	c, _ := Choice(r, strings.Split("abcdefghijklmnopqrstuvwxyz", ""))
	d.Choice = c
	d.Shuffle = make([]int, 23)
	for i := range d.Shuffle {
		d.Shuffle[i] = i
	}
	r.Shuffle(len(d.Shuffle), func(i, j int) { d.Shuffle[i], d.Shuffle[j] = d.Shuffle[j], d.Shuffle[i] })
	d.SampleSmall, _ = r.Sample(30, 7)
	d.SampleLarge, _ = r.Sample(1000, 12)
	d.Uniform = pyRepr(r.Uniform(-3.5, 8.25))
	d.After = pyRepr(r.Random())
	return d
}

func TestAgainstPython(t *testing.T) {
	py, err := exec.LookPath("/usr/bin/python3")
	if err != nil {
		t.Skip("no /usr/bin/python3")
	}
	huge := new(big.Int).Exp(big.NewInt(3), big.NewInt(700), nil) // 1110 bits: a long key
	cases := []struct {
		kind, text string
		gen        func() *Rand
	}{
		{"int", "0", func() *Rand { return NewUint64(0) }},
		{"int", "1", func() *Rand { return NewUint64(1) }},
		{"int", "12345", func() *Rand { return NewUint64(12345) }},
		{"int", "4294967295", func() *Rand { return NewUint64(1<<32 - 1) }},
		{"int", "4294967296", func() *Rand { return NewUint64(1 << 32) }},
		{"int", "18446744073709551615", func() *Rand { return NewUint64(1<<64 - 1) }},
		{"int", "-77", func() *Rand { return New(big.NewInt(-77)) }},
		{"int", huge.String(), func() *Rand { return New(huge) }},
		{"str", "K48XMESC", func() *Rand { return NewString("K48XMESC") }},
		{"str", "", func() *Rand { return NewString("") }},
		{"str", "Ünïcødé seed ✓", func() *Rand { return NewString("Ünïcødé seed ✓") }},
	}
	var in strings.Builder
	for _, c := range cases {
		fmt.Fprintf(&in, "%s %s\n", c.kind, c.text)
	}
	cmd := exec.Command(py, "-c", pyScript)
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(cases) {
		t.Fatalf("python3 printed %d lines for %d cases", len(lines), len(cases))
	}
	for i, c := range cases {
		var want draws
		if err := json.Unmarshal([]byte(lines[i]), &want); err != nil {
			t.Fatalf("case %s %q: %v", c.kind, c.text, err)
		}
		if got := goDraws(c.gen()); !reflect.DeepEqual(got, want) {
			t.Errorf("seed %s %.20s:\n go     %+v\n python %+v", c.kind, c.text, got, want)
		}
	}
}

// A generator seeded with a getrandbits result of another reproduces Python's nesting, as
// the ruins engine does for its flavour and bot generators.
func TestSeedFromDraw(t *testing.T) {
	py, err := exec.LookPath("/usr/bin/python3")
	if err != nil {
		t.Skip("no /usr/bin/python3")
	}
	out, err := exec.Command(py, "-c", `
import random
g = random.Random(12345)
f = random.Random(g.getrandbits(420))
b = random.Random(g.getrandbits(744))
print(repr(f.random()), repr(b.random()), g.getrandbits(1337) % 1000003)`).Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	g := NewUint64(12345)
	f := New(g.GetRandBits(420))
	b := New(g.GetRandBits(744))
	last := new(big.Int).Mod(g.GetRandBits(1337), big.NewInt(1000003))
	got := fmt.Sprintf("%s %s %s", pyRepr(f.Random()), pyRepr(b.Random()), last)
	if want := strings.TrimSpace(string(out)); got != want {
		t.Errorf("nested seeding: go %q, python %q", got, want)
	}
}

func BenchmarkRandom(b *testing.B) {
	r := NewUint64(1)
	for b.Loop() {
		r.Random()
	}
}

func BenchmarkSeed744(b *testing.B) {
	seed := NewUint64(2).GetRandBits(744)
	for b.Loop() {
		New(seed)
	}
}
