package forty

import (
	"encoding/json"
	"testing"
)

// The arguments that write their own JSON write what encoding/json would.
func TestArgsAppendJSON(t *testing.T) {
	for _, a := range []interface {
		AppendJSON([]byte) []byte
	}{
		&beginArgs{Seat: 3},
		&startArgs{Throws: []int{4}, Scores: []int{0, 12, 39, 7}, Last: true},
		&nextArgs{Throws: []int{1, 2, 5}},
	} {
		want, _ := json.Marshal(a)
		if want == nil || string(want) == "null" {
			t.Fatalf("%T marshals to %s", a, want)
		}
		got := a.AppendJSON([]byte("x"))
		if string(got[1:]) != string(want) {
			t.Errorf("%T: AppendJSON wrote %s, encoding/json %s", a, got[1:], want)
		}
	}
}
