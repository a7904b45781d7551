package scraper_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kothd/kothd/scraper"
	"github.com/kothd/kothd/scraper/fakeapi"
)

// The fixture under testdata/snapshot holds question 100 over two pages: a Mafia-style
// multi-file answer, an answer of a deleted user, entity-laden display names.
func TestFixtureSnapshotLiveAndReplayed(t *testing.T) {
	ctx := context.Background()
	snap := scraper.Snapshot{Dir: "testdata/snapshot", Site: "codegolf"}
	replayed, err := snap.Answers(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(replayed) != 3 {
		t.Fatalf("%d answers, want 3 over two pages", len(replayed))
	}
	api := fakeapi.New()
	defer api.Close()
	if err := api.LoadSnapshot("testdata/snapshot", "codegolf"); err != nil {
		t.Fatal(err)
	}
	c, _ := newClient(api)
	c.PageSize = 2
	live, err := c.Answers(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(live, replayed) {
		t.Fatalf("served snapshot differs from replay:\n%+v\n%+v", live, replayed)
	}
	if api.Requests() != 2 {
		t.Errorf("%d requests for 3 answers in pages of 2, want 2", api.Requests())
	}

	rules := scraper.Rules{Mode: "multi-file", HeaderLanguage: true, Entry: "run",
		Languages: map[string][]string{"python2": {"Python 2"}, "bash": {"Bash"}, "c": {"C"}},
		MainFile:  map[string]string{"python2": "bot.py", "bash": "bot.sh", "c": "bot.c"}}
	subs := scraper.ExtractAll(live, rules)
	want := []struct{ title, author, lang, files, main string }{
		{"Randy", "Jane & Co", "python2", "run randy.py", ""},
		{"Orphan", "user502", "bash", "run", ""},
		{"Forgetful", "O'Brien <3", "c", "bot.c", "bot.c"},
	}
	for i, w := range want {
		s := subs[i]
		var names []string
		for _, f := range s.Files {
			names = append(names, f.Name)
		}
		if s.Reject != "" || s.Title != w.title || s.Author != w.author || s.Language != w.lang || strings.Join(names, " ") != w.files || s.Main != w.main {
			t.Errorf("answer %d: %q by %q, %s, files %v, main %q, reject %q; want %+v", s.AnswerID, s.Title, s.Author, s.Language, names, s.Main, s.Reject, w)
		}
	}
	if got := subs[0].Files[1].Content; !strings.Contains(got, "['a & b']") {
		t.Errorf("entities not decoded once: %q", got)
	}
	if subs[1].Edited != 1491500000 || subs[2].Edited != subs[2].Created {
		t.Errorf("edit dates %d %d", subs[1].Edited, subs[2].Edited)
	}
}

// A recorded snapshot holds the raw pages, so replaying it must make of them what the live
// fetch made: an answer repeated on the next page (undeleted while paging) counts once, an
// item of another question is dropped. Before, the replay kept both, so a bot met itself
// as a duplicate and a stray answer entered the challenge.
func TestSnapshotReplaysPagesAsTheLiveFetch(t *testing.T) {
	dir := t.TempDir()
	qdir := filepath.Join(dir, "codegolf", "177765")
	if err := os.MkdirAll(qdir, 0o755); err != nil {
		t.Fatal(err)
	}
	item := func(q, id int64) string {
		return fmt.Sprintf(`{"answer_id":%d,"question_id":%d,"creation_date":%d,"last_activity_date":%d,"owner":{"display_name":"A%d"},"body":"<h1>B%d</h1>"}`, id, q, id, id, id, id)
	}
	pages := []string{
		`{"items":[` + item(177765, 1) + `,` + item(177765, 2) + `],"has_more":true}`,
		`{"items":[` + item(177765, 2) + `,` + item(169235, 9) + `,` + item(177765, 3) + `],"has_more":false}`,
	}
	for i, p := range pages {
		if err := os.WriteFile(filepath.Join(qdir, fmt.Sprintf("answers.%d.json", i+1)), []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var log strings.Builder
	snap := scraper.Snapshot{Dir: dir, Site: "codegolf", Log: slog.New(slog.NewTextHandler(&log, nil))}
	got, err := snap.Answers(context.Background(), 177765)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, a := range got {
		ids = append(ids, a.AnswerID)
	}
	if !reflect.DeepEqual(ids, []int64{1, 2, 3}) {
		t.Errorf("replayed answers %v, want [1 2 3]", ids)
	}
	if !strings.Contains(log.String(), "another question") {
		t.Errorf("the stray answer was not logged:\n%s", log.String())
	}
	info, err := snap.Probe(context.Background(), []int64{177765})
	if err != nil || len(info) != 1 || info[0].AnswerCount != 3 {
		t.Errorf("probe %+v, %v; want 3 answers", info, err)
	}
}

// A mistyped --snapshot is an error, not a site whose every question was deleted (the
// cycle said "question not found by the API (deleted?)" and exited 0).
func TestMissingSnapshotIsAnError(t *testing.T) {
	for _, snap := range []scraper.Snapshot{{Dir: filepath.Join(t.TempDir(), "nonexistent"), Site: "codegolf"}, {Dir: "testdata/snapshot", Site: "codegolff"}} {
		info, err := snap.Probe(context.Background(), []int64{100})
		if err == nil || !strings.Contains(err.Error(), snap.Dir) {
			t.Errorf("%+v: probe %+v, %v; want an error naming the directory", snap, info, err)
		}
	}
	if info, err := (scraper.Snapshot{Dir: "testdata/snapshot", Site: "codegolf"}).Probe(context.Background(), []int64{100, 7}); err != nil || len(info) != 1 {
		t.Errorf("a question missing from a real snapshot: %+v, %v; want it left out", info, err)
	}
}
