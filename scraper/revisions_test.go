package scraper_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/kothd/kothd/scraper"
	"github.com/kothd/kothd/scraper/fakeapi"
)

// An answer's revision number is the highest revision_number of its edit history, over
// as many pages as the history takes, asked only for the answers named.
func TestRevisionNumbers(t *testing.T) {
	api := fakeapi.New()
	defer api.Close()
	answer := func(id, created, edited int64, body string) map[string]any {
		return map[string]any{"answer_id": id, "question_id": 1, "creation_date": created, "last_edit_date": edited, "body": body}
	}
	// 11: posted, then edited four times; 12: posted once; 13: posted with an edit already
	// made (revisions 1 and 2); 14 is not asked about.
	api.Put(1, answer(11, 100, 0, "v1"))
	for v := 2; v <= 5; v++ {
		api.Put(1, answer(11, 100, int64(100+v), fmt.Sprintf("v%d", v)))
	}
	api.Put(1, answer(12, 200, 0, "a"), answer(13, 300, 310, "b"), answer(14, 400, 0, "c"))
	for i := range int64(150) { // a long history: more than one page
		api.Put(1, answer(15, 500, 500+i, fmt.Sprintf("%d", i)))
	}
	c := scraper.New(api.BaseURL(), "codegolf", "")
	got, err := c.RevisionNumbers(context.Background(), []int64{11, 12, 13, 15, 99})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[int64]int{11: 5, 12: 1, 13: 2, 15: 150}; !reflect.DeepEqual(got, want) {
		t.Errorf("revision numbers %v, want %v", got, want)
	}
	var pages int
	for _, l := range api.Log() {
		if !strings.HasPrefix(l, "/2.3/posts/11;12;13;15;99/revisions?") {
			t.Errorf("request %s", l)
		}
		pages++
	}
	if pages != 2 { // 5 + 1 + 2 + 150 revisions, 100 a page
		t.Errorf("%d requests, want 2 pages", pages)
	}
}
