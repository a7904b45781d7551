package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/publisher"
	"github.com/kothd/kothd/scraper/fakeapi"
	"github.com/kothd/kothd/store"
)

// status says what became of the question's table: not looked at yet, or the last edit and
// the last look with what the host must do.
func TestStatusShowsTheQuestionTable(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "kothd.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	at := func(unix int64) string { return time.Unix(unix, 0).UTC().Format("2006-01-02 15:04") }
	ch := &config.Challenge{Name: "forty", QuestionBoard: &config.QuestionBoard{Enabled: true, Top: 5}}
	var w bytes.Buffer
	if err := printQuestionBoard(ctx, &w, st, ch, at); err != nil {
		t.Fatal(err)
	}
	if got := w.String(); got != "  question:     table enabled (top 5, at most every 24h0m0s), not looked at yet\n" {
		t.Errorf("before any look: %q", got)
	}
	t0 := time.Date(2026, 11, 26, 4, 0, 0, 0, time.UTC)
	if err := st.RecordQuestionEdit(ctx, "forty", t0, 7, []byte(`{}`), "wrote", 0); err != nil {
		t.Fatal(err)
	}
	if err := st.RecordQuestionCheck(ctx, "forty", t0.Add(24*time.Hour), "failed", "stack exchange API questions/{id}/edit: error 402 invalid_access_token: x: SE_ACCESS_TOKEN is missing, expired, revoked or compromised: obtain a new token", 8); err != nil {
		t.Fatal(err)
	}
	w.Reset()
	if err := printQuestionBoard(ctx, &w, st, ch, at); err != nil {
		t.Fatal(err)
	}
	if got := w.String(); !strings.Contains(got, "last edit 2026-11-26 04:00, run 7; last look 2026-11-27 04:00: failed: ") || !strings.Contains(got, "obtain a new token") {
		t.Errorf("after a failed look: %q", got)
	}
	w.Reset()
	if err := printQuestionBoard(ctx, &w, st, &config.Challenge{Name: "other"}, at); err != nil || w.Len() != 0 {
		t.Errorf("a challenge without a table: %q %v", w.String(), err)
	}
}

// The question's table is a publication target like the directory and GitHub: with the
// API refusing the edit (an expired token), once plays, writes the directory's board and
// exits 1 naming the question; status lists it FAILED with the reason (text and --json) and
// exits 1 (degraded). With the token fixed, the next once writes the owed table and all is
// well. Before, a failed edit left once at exit 0 and status at "healthy".
func TestQuestionTableIsAPublicationTarget(t *testing.T) {
	api := fakeapi.New()
	defer api.Close()
	if err := api.LoadSnapshot(oneBotSnapshot(t), "codegolf"); err != nil {
		t.Fatal(err)
	}
	body := "Play forty.\r\n\r\n" + publisher.MarkerOpen + "\r\n" + publisher.MarkerClose + "\r\n\r\nRules follow, long enough.\r\n"
	api.SetQuestion(177765, "A game of dice", body, "king-of-the-hill")
	api.SetAccessToken("good-token")
	t.Setenv("SE_API_KEY", "key")
	t.Setenv("SE_ACCESS_TOKEN", "expired-token")
	cfg := testConfig(t, "api_base: "+api.BaseURL()+"\n")
	b, _ := os.ReadFile(cfg)
	cfgText := strings.Replace(string(b), "engine: forty}", "engine: forty, games: 20, question_board: {enabled: true}}", 1)
	if err := os.WriteFile(cfg, []byte(cfgText), 0o644); err != nil {
		t.Fatal(err)
	}
	target := "question:codegolf/177765"
	code, out, errOut := kothd(t, "once", "--config", cfg, "--challenge", "forty")
	if code != 1 || !strings.Contains(errOut, "publication to "+target+" failed") || !strings.Contains(errOut, "invalid_access_token") {
		t.Fatalf("once with the edit refused: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "leaderboard written to") || len(api.Edits()) != 0 {
		t.Fatalf("the directory's board is missing, or an edit went through:\n%s", out)
	}
	code, out, _ = kothd(t, "status", "--config", cfg, "--challenge", "forty")
	if code != 1 || !strings.Contains(out, "published:    "+target+": FAILED at") || !strings.Contains(out, "obtain a new token") {
		t.Errorf("status: exit %d\n%s", code, out)
	}
	code, out, _ = kothd(t, "status", "--config", cfg, "--challenge", "forty", "--json")
	var rep struct {
		Challenges []struct {
			Health       string `json:"health"`
			Publications []struct {
				Target   string     `json:"target"`
				OK       bool       `json:"ok"`
				FailedAt *time.Time `json:"failed_at"`
				Failure  string     `json:"failure"`
			} `json:"publications"`
		} `json:"challenges"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Challenges) != 1 {
		t.Fatalf("status --json: exit %d, %v\n%s", code, err, out)
	}
	pubs := rep.Challenges[0].Publications
	if code != 1 || rep.Challenges[0].Health != "degraded" || len(pubs) != 2 || pubs[1].Target != target || pubs[1].OK ||
		pubs[1].FailedAt == nil || !strings.Contains(pubs[1].Failure, "invalid_access_token") {
		t.Errorf("status --json: exit %d\n%s", code, out)
	}
	t.Setenv("SE_ACCESS_TOKEN", "good-token")
	code, out, errOut = kothd(t, "once", "--config", cfg, "--challenge", "forty")
	if code != 0 || len(api.Edits()) != 1 || !strings.Contains(out, "question 177765: edited") {
		t.Fatalf("once with the token fixed: exit %d, %d edits\nstdout:\n%s\nstderr:\n%s", code, len(api.Edits()), out, errOut)
	}
	code, out, _ = kothd(t, "status", "--config", cfg, "--challenge", "forty")
	if code != 0 || !strings.Contains(out, "published:    "+target+": ok at") {
		t.Errorf("status after the edit: exit %d\n%s", code, out)
	}
}

// status counts the comments on answers not entered, with the last refusal's reason.
func TestStatusShowsComments(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "kothd.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ch := &config.Challenge{Name: "forty", AnswerComments: &config.AnswerComments{Enabled: true}}
	t0 := time.Date(2026, 11, 26, 4, 0, 0, 0, time.UTC)
	for i, c := range []store.AnswerComment{
		{AnswerID: 1, Revision: 1, Reason: "a", State: store.CommentPosted, CommentID: 9},
		{AnswerID: 2, Revision: 2, Reason: "b", State: store.CommentPosted, CommentID: 10},
		{AnswerID: 3, Revision: 3, Reason: "c", State: store.CommentOwed, Detail: "the account behind SE_ACCESS_TOKEN cannot comment on others' posts: it needs 50 reputation on the site"},
		{AnswerID: 4, Revision: 4, Reason: "d", State: store.CommentQueued, Detail: "answer_comments.max_per_cycle (5) reached"},
	} {
		if err := st.RecordAnswerComment(ctx, "forty", c, t0.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	c, err := commentCounts(ctx, st, ch)
	if err != nil || c == nil {
		t.Fatal(c, err)
	}
	var w bytes.Buffer
	printComments(&w, c)
	if got := w.String(); got != "  comments:     2 posted, 0 refused, 2 waiting (1 held by max_per_cycle), 0 not repeated (same reason); last refusal: the account behind SE_ACCESS_TOKEN cannot comment on others' posts: it needs 50 reputation on the site\n" {
		t.Errorf("%q", got)
	}
	if c, err := commentCounts(ctx, st, &config.Challenge{Name: "other"}); c != nil || err != nil {
		t.Errorf("a challenge without comments: %+v %v", c, err)
	}
}
