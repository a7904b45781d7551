package scraper_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/scraper"
	"github.com/kothd/kothd/scraper/fakeapi"
)

// The forty benchmark fields (testdata/fortyfield, testdata/fortyfloor) are snapshots in
// the API's format: every one of their 48 answers extracts to a bot under the rules
// config.yaml gives forty (the path kothd bench --snapshot takes), with its class lines
// intact (49 classes in the field: one answer has two), and the fake API serves them as
// replay reads them.
func TestFortyBenchmarkFields(t *testing.T) {
	cfg, err := config.Load("../config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ch, err := cfg.Challenge("forty")
	if err != nil {
		t.Fatal(err)
	}
	class := regexp.MustCompile(`(?m)^class \w+\(Bot\):`)
	for dir, classes := range map[string]int{"../testdata/fortyfield": 49, "../testdata/fortyfloor": 48} {
		t.Run(dir, func(t *testing.T) {
			snap := scraper.Snapshot{Dir: dir, Site: cfg.Site}
			answers, err := snap.Answers(context.Background(), ch.QuestionID)
			if err != nil {
				t.Fatal(err)
			}
			subs := scraper.ExtractAll(answers, scraper.RulesFromConfig(cfg, ch))
			if len(subs) != 48 {
				t.Fatalf("%d answers, want 48", len(subs))
			}
			n := 0
			for _, s := range subs {
				if s.Reject != "" || s.Main != "bot.py" || len(s.Files) != 1 {
					t.Errorf("answer %d: %s", s.AnswerID, describe(s))
					continue
				}
				n += len(class.FindAllString(s.Files[0].Content, -1))
			}
			if n != classes {
				t.Errorf("%d classes, want %d", n, classes)
			}
			api := fakeapi.New()
			defer api.Close()
			if err := api.LoadSnapshot(dir, "codegolf"); err != nil {
				t.Fatal(err)
			}
			c, _ := newClient(api)
			live, err := c.Answers(context.Background(), ch.QuestionID)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(live) != fmt.Sprint(answers) {
				t.Error("API and replay differ")
			}
		})
	}
}
