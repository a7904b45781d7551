package scraper_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kothd/kothd/scraper"
	"github.com/kothd/kothd/scraper/fakeapi"
	"github.com/kothd/kothd/store"
)

// fakeClock advances only when the client sleeps, and remembers every sleep.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func newClock() *fakeClock {
	return &fakeClock{now: time.Date(2019, 1, 10, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.sleeps = append(c.sleeps, d)
	return ctx.Err()
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func (c *fakeClock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

// answer builds an API answer object the way the real API serialises it.
func answer(qid, id, created int64, name, body string) map[string]any {
	return map[string]any{
		"owner": map[string]any{
			"account_id": id * 3, "reputation": 101, "user_id": id * 7, "user_type": "registered",
			"display_name": name, "link": fmt.Sprintf("https://codegolf.stackexchange.com/users/%d/x", id*7),
		},
		"is_accepted": false, "score": 3, "last_activity_date": created + 50, "creation_date": created,
		"answer_id": id, "question_id": qid, "content_license": "CC BY-SA 4.0", "body": body,
	}
}

func botBody(name string) string {
	return "<h1>" + name + "</h1>\n\n<pre><code>class " + name + "(Bot):\n    def make_throw(self, scores, last_round):\n        yield False\n</code></pre>\n"
}

// fill puts n answers into question qid, ids qid+1…, created one minute apart.
func fill(t *testing.T, api *fakeapi.Server, qid int64, n int) {
	t.Helper()
	for i := 1; i <= n; i++ {
		id := qid + int64(i)
		if err := api.Put(qid, answer(qid, id, 1549000000+int64(i)*60, fmt.Sprintf("User %d", i), botBody(fmt.Sprintf("Bot%d", i)))); err != nil {
			t.Fatal(err)
		}
	}
}

func newClient(api *fakeapi.Server) (*scraper.Client, *fakeClock) {
	clk := newClock()
	c := scraper.New(api.BaseURL(), "codegolf", "")
	c.Clock = clk
	return c, clk
}

func TestAnswersPagesInCreationOrder(t *testing.T) {
	api := fakeapi.New()
	defer api.Close()
	fill(t, api, 177765, 250)
	c, _ := newClient(api)
	c.Key = "k3y((" // must travel escaped
	got, err := c.Answers(context.Background(), 177765)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 250 {
		t.Fatalf("got %d answers, want 250", len(got))
	}
	for i, a := range got {
		if a.AnswerID != 177765+int64(i+1) {
			t.Fatalf("answer %d has id %d: not in creation order", i, a.AnswerID)
		}
	}
	if got[0].Owner.UserID != (177765+1)*7 || got[0].QuestionID != 177765 || got[0].Body == "" {
		t.Errorf("first answer not decoded: %+v", got[0])
	}
	log := api.Log()
	if len(log) != 3 {
		t.Fatalf("%d requests for 250 answers, want 3: %v", len(log), log)
	}
	for i, uri := range log {
		u, _ := url.Parse(uri)
		q := u.Query()
		want := map[string]string{"site": "codegolf", "filter": "withbody", "pagesize": "100", "page": fmt.Sprint(i + 1), "sort": "creation", "order": "asc", "key": "k3y(("}
		for k, v := range want {
			if q.Get(k) != v {
				t.Errorf("request %d: %s=%q, want %q (%s)", i+1, k, q.Get(k), v, uri)
			}
		}
		if u.Path != "/2.3/questions/177765/answers" {
			t.Errorf("request %d path %s", i+1, u.Path)
		}
	}
}

func TestBodyEncodings(t *testing.T) {
	for _, tc := range []struct {
		enc    string
		header bool
	}{
		{fakeapi.Gzip, true}, {fakeapi.Gzip, false},
		{fakeapi.Zlib, true}, {fakeapi.Zlib, false},
		{fakeapi.RawDeflate, true}, {fakeapi.RawDeflate, false},
		{fakeapi.Identity, false},
	} {
		t.Run(fmt.Sprintf("%s/header=%v", tc.enc, tc.header), func(t *testing.T) {
			api := fakeapi.New()
			defer api.Close()
			fill(t, api, 169235, 3)
			api.SetEncoding(tc.enc, tc.header)
			c, _ := newClient(api)
			got, err := c.Answers(context.Background(), 169235)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 3 || got[2].AnswerID != 169238 {
				t.Fatalf("got %+v", got)
			}
		})
	}
}

func TestBackoffIsHonouredPerMethod(t *testing.T) {
	api := fakeapi.New()
	defer api.Close()
	fill(t, api, 183101, 2)
	c, clk := newClient(api)
	ctx := context.Background()
	api.Fail(fakeapi.Fault{Method: "answers", Backoff: 7})
	if _, err := c.Answers(ctx, 183101); err != nil {
		t.Fatal(err)
	}
	if s := clk.Sleeps(); len(s) != 0 {
		t.Fatalf("slept %v before any backoff was asked", s)
	}
	// Another method is not held back.
	if _, err := c.Probe(ctx, []int64{183101}); err != nil {
		t.Fatal(err)
	}
	if s := clk.Sleeps(); len(s) != 0 {
		t.Fatalf("probe slept %v for the answers method's backoff", s)
	}
	clk.Advance(2 * time.Second) // time passes between calls: only the rest is waited
	if _, err := c.Answers(ctx, 183101); err != nil {
		t.Fatal(err)
	}
	if s := clk.Sleeps(); !reflect.DeepEqual(s, []time.Duration{5 * time.Second}) {
		t.Fatalf("sleeps %v, want [5s]", s)
	}
	// A backoff longer than MaxWait fails fast, without a request.
	api.Fail(fakeapi.Fault{Method: "answers", Backoff: 3600})
	if _, err := c.Answers(ctx, 183101); err != nil {
		t.Fatal(err)
	}
	n := api.Requests()
	_, err := c.Answers(ctx, 183101)
	if !errors.Is(err, scraper.ErrBackoff) {
		t.Fatalf("err = %v, want ErrBackoff", err)
	}
	if api.Requests() != n {
		t.Errorf("a request was made during the backoff")
	}
}

func TestProbeOnlyChangedQuestionsAreFetched(t *testing.T) {
	api := fakeapi.New()
	defer api.Close()
	ids := []int64{115303, 151341, 169235, 177765, 183101}
	for i, id := range ids {
		fill(t, api, id, 3+i)
	}
	c, _ := newClient(api)
	ctx := context.Background()
	known := map[int64]scraper.QuestionInfo{}
	check := func() []int64 {
		infos, err := c.Probe(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		changed := scraper.Changed(known, infos)
		for _, id := range changed {
			if _, err := c.Answers(ctx, id); err != nil {
				t.Fatal(err)
			}
		}
		for _, in := range infos {
			known[in.QuestionID] = in
		}
		return changed
	}
	if got := check(); !reflect.DeepEqual(got, ids) {
		t.Fatalf("first check fetched %v, want all", got)
	}
	before := api.Requests()
	if got := check(); len(got) != 0 {
		t.Fatalf("unchanged API: fetched %v", got)
	}
	if n := api.Requests() - before; n != 1 {
		t.Fatalf("a check with nothing changed made %d requests, want 1", n)
	}
	probe := api.Log()[before]
	if !strings.Contains(probe, "/questions/115303;151341;169235;177765;183101?") {
		t.Errorf("probe request %s does not ask for all questions at once", probe)
	}
	// An edit (activity), a new answer (count) and a deletion (count) are all seen.
	a := answer(169235, 169236, 1549000060, "User 1", botBody("Edited"))
	a["last_activity_date"] = 1560000000
	a["last_edit_date"] = 1560000000
	api.Put(169235, a)
	api.Put(183101, answer(183101, 183999, 1561000000, "Newcomer", botBody("Late")))
	api.Delete(115303, 115304)
	if got := check(); !reflect.DeepEqual(got, []int64{115303, 169235, 183101}) {
		t.Fatalf("changed %v, want [115303 169235 183101]", got)
	}
}

func TestAnswerDeletedBetweenFetches(t *testing.T) {
	api := fakeapi.New()
	defer api.Close()
	fill(t, api, 177765, 4)
	c, _ := newClient(api)
	ctx := context.Background()
	rules := scraper.Rules{Mode: "class-blocks", ClassPattern: `^class \w+\(\w*Bot\):`, Language: "python3"}
	first, err := c.Answers(ctx, 177765)
	if err != nil {
		t.Fatal(err)
	}
	// The store owns change tracking: both fetches go into a real SQLite file.
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "kothd.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.RecordAnswers(ctx, "forty", 177765, scraper.ExtractAll(first, rules)); err != nil {
		t.Fatal(err)
	}
	api.Delete(177765, 177767)
	second, err := c.Answers(ctx, 177765)
	if err != nil {
		t.Fatal(err)
	}
	changes, err := st.RecordAnswers(ctx, "forty", 177765, scraper.ExtractAll(second, rules))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, ch := range changes {
		kinds = append(kinds, fmt.Sprintf("%d:%s", ch.AnswerID, ch.Kind))
	}
	want := []string{"177766:unchanged", "177768:unchanged", "177769:unchanged", "177767:deleted"}
	if !reflect.DeepEqual(kinds, want) {
		t.Fatalf("changes %v, want %v", kinds, want)
	}
	if s, _ := st.Status(ctx, "forty"); s.Answers != 3 || s.Deleted != 1 {
		t.Errorf("stored %d active and %d deleted answers, want 3 and 1", s.Answers, s.Deleted)
	}
}

func TestRecordWritesReplayableSnapshot(t *testing.T) {
	api := fakeapi.New()
	defer api.Close()
	fill(t, api, 177765, 5)
	fill(t, api, 183101, 1)
	c, _ := newClient(api)
	c.PageSize = 2
	dir := t.TempDir()
	ctx := context.Background()
	if err := scraper.Record(ctx, c, dir, "codegolf", []int64{177765, 183101}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"177765/answers.1.json", "177765/answers.3.json", "183101/answers.1.json"} {
		b, err := os.ReadFile(filepath.Join(dir, "codegolf", p))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(b), `{"has_more":`) && !strings.HasPrefix(string(b), `{"items":`) {
			t.Errorf("%s is not a raw decompressed body: %.40q", p, b)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "codegolf", "177765", "answers.4.json")); err == nil {
		t.Errorf("a fourth page was written for five answers in pages of two")
	}
	live, _ := c.Answers(ctx, 177765)
	snap := scraper.Snapshot{Dir: dir, Site: "codegolf"}
	replayed, err := snap.Answers(ctx, 177765)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(live, replayed) {
		t.Fatalf("replay differs from live answers")
	}
	infos, err := snap.Probe(ctx, []int64{183101, 999, 177765})
	if err != nil || len(infos) != 2 || infos[0].QuestionID != 183101 || infos[1].AnswerCount != 5 {
		t.Fatalf("snapshot probe %+v, %v", infos, err)
	}

	// A failed re-recording leaves the previous one intact.
	api.Delete(177765, 177766)
	api.Fail(fakeapi.Fault{Method: "answers"}, fakeapi.Fault{Method: "answers", ErrorID: 400, ErrorName: "bad_parameter", ErrorMessage: "page"})
	if err := scraper.Record(ctx, c, dir, "codegolf", []int64{177765}); err == nil {
		t.Fatal("record succeeded despite an API error")
	}
	again, err := snap.Answers(ctx, 177765)
	if err != nil || !reflect.DeepEqual(again, replayed) {
		t.Fatalf("previous recording damaged: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "codegolf"))
	if len(entries) != 2 {
		t.Errorf("leftovers in the snapshot directory: %v", entries)
	}
}
