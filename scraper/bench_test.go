package scraper_test

import (
	"context"
	"testing"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/scraper"
	"github.com/kothd/kothd/scraper/fakeapi"
)

// BenchmarkAnswers250 fetches 250 answers (three gzip pages) from the fake API over
// loopback: the client's cost per full fetch, HTTP and decoding included.
func BenchmarkAnswers250(b *testing.B) {
	api := fakeapi.New()
	defer api.Close()
	for i := 1; i <= 250; i++ {
		id := int64(177765 + i)
		api.Put(177765, map[string]any{"answer_id": id, "question_id": 177765, "creation_date": 1549000000 + i,
			"owner": map[string]any{"user_id": i, "display_name": "User", "user_type": "registered"},
			"body":  "<h1>Bot</h1><pre><code>class Bot" + string(rune('A'+i%26)) + "(Bot):\n    def make_throw(self, scores, last_round):\n        yield False\n</code></pre>"})
	}
	c := scraper.New(api.BaseURL(), "codegolf", "")
	c.MinQuota = -1
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		got, err := c.Answers(ctx, 177765)
		if err != nil || len(got) != 250 {
			b.Fatal(len(got), err)
		}
	}
}

// BenchmarkExtractAllBundled extracts every bundled snapshot question under its configured
// rules (goquery parsing dominates).
func BenchmarkExtractAllBundled(b *testing.B) {
	cfg, err := config.Load("../config.yaml")
	if err != nil {
		b.Fatal(err)
	}
	snap := scraper.Snapshot{Dir: "../testdata/snapshot", Site: "codegolf"}
	type q struct {
		answers []scraper.Answer
		rules   scraper.Rules
	}
	var qs []q
	n := 0
	for i := range cfg.Challenges {
		ch := &cfg.Challenges[i]
		as, err := snap.Answers(context.Background(), ch.QuestionID)
		if err != nil {
			continue // not bundled yet
		}
		qs = append(qs, q{as, scraper.RulesFromConfig(cfg, ch)})
		n += len(as)
	}
	if n == 0 {
		b.Skip("no bundled snapshots")
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, q := range qs {
			scraper.ExtractAll(q.answers, q.rules)
		}
	}
	b.ReportMetric(float64(n), "answers/op")
}
