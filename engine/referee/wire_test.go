package referee

import (
	"encoding/json"
	"testing"
)

// The answer kothd writes per bot request is encoding/json's, byte for byte, whatever the
// bot replied (quotes, control characters, invalid UTF-8, line separators).
func TestAnswerJSONIsEncodingJSONs(t *testing.T) {
	for _, reply := range []string{"", "R", `say "hi" \ there`, "tab\tnul\x00", "<&>", "é ü 日本", "bad \xff\xfe utf8", "\u2028\u2029", "\x7f"} {
		for _, fault := range []string{"", "timeout"} {
			a := answer{Seat: 3, Reply: reply, Fault: fault}
			want, _ := json.Marshal(a)
			if got := a.appendJSON(nil); string(got) != string(want) {
				t.Errorf("%q: %s, want %s", reply, got, want)
			}
		}
	}
}

func FuzzAnswerJSON(f *testing.F) {
	f.Add("R", 1)
	f.Fuzz(func(t *testing.T, reply string, seat int) {
		a := answer{Seat: seat, Reply: reply}
		want, _ := json.Marshal(a)
		if got := a.appendJSON(nil); string(got) != string(want) {
			t.Errorf("%q: %s, want %s", reply, got, want)
		}
	})
}
