package publisher

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// Whatever the cycle hands it, a board carries at most MaxNotEntered records and one that
// counts the rest, each field cut to its bound; and the JSON holds no raw control or format
// character, while decoding to the exact strings.
func TestBoardIsBounded(t *testing.T) {
	in := sampleInput()
	in.NotEntered = nil
	author, reason := strings.Repeat("a", 500), strings.Repeat("why ", 10000)
	for i := range 40000 {
		in.NotEntered = append(in.NotEntered, Rejected{AnswerID: int64(100 + i), Author: author, Name: "C" + itoa(int64(i)), Status: "rejected", Reason: reason})
	}
	in.Bots["Leader"] = BotInfo{Bot: answerBot("Ann\u202e\x00", 11), FirstFault: strings.Repeat("x", 100000)}
	b := Build(in)
	if n := len(b.NotEntered); n != MaxNotEntered+1 {
		t.Fatalf("%d not-entered records, want %d", n, MaxNotEntered+1)
	}
	if last := b.NotEntered[MaxNotEntered]; last.Status != "not listed" || !strings.Contains(last.Reason, "39800 more") {
		t.Errorf("the last record %+v does not count the 39,800 left off", last)
	}
	if r := b.NotEntered[0]; utf8.RuneCountInString(r.Reason) > 1001 || utf8.RuneCountInString(r.Author) > 101 {
		t.Errorf("a record of %d and %d characters", utf8.RuneCountInString(r.Reason), utf8.RuneCountInString(r.Author))
	}
	if n := utf8.RuneCountInString(b.Rows[0].FirstFault); n > 5001 {
		t.Errorf("a first fault of %d characters", n)
	}
	md, js := Markdown(b), JSON(b)
	t.Logf("markdown %d bytes, JSON %d bytes", len(md), len(js))
	if len(md) > 500<<10 || len(js) > 500<<10 {
		t.Errorf("markdown %d bytes, JSON %d: want both under 500 KB", len(md), len(js))
	}
	for name, f := range map[string][]byte{"markdown": md, "JSON": js} {
		if strings.ContainsAny(string(f), "\u202e\x00") {
			t.Errorf("the %s holds a raw U+202E or NUL", name)
		}
	}
	if !strings.Contains(string(js), `Ann\u202e\u0000`) {
		t.Error("the JSON does not escape the author's U+202E and NUL")
	}
	var back Board
	if err := json.Unmarshal(js, &back); err != nil || back.Rows[0].Author != "Ann\u202e\x00" {
		t.Errorf("the JSON does not decode to the exact author: %q (%v)", back.Rows[0].Author, err)
	}
	if !strings.Contains(string(md), "Ann⟨U+202E⟩␀") {
		t.Error("the page does not show the author's U+202E and NUL")
	}
}
