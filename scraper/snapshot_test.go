package scraper_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"kothd/scraper"
	"kothd/scraper/fakeapi"
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
