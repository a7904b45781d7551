package cron_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/cron/crontest"
	"github.com/kothd/kothd/internal/metrics"
	"github.com/kothd/kothd/publisher"
	"github.com/kothd/kothd/publisher/fakegithub"
	"github.com/kothd/kothd/scraper"
	"github.com/kothd/kothd/scraper/fakeapi"
	"github.com/kothd/kothd/store"
)

// The question's own table, end to end: answers fetched from the fake API by the client a
// host runs, the fake game (the cycle's logic, not bots'), the real store, a directory and a
// fake GitHub as the other sinks, and the same client editing the question.

const qbQuestion = 177765

// qbHead and qbTail are the host's question around the markers: entities written as text
// in code, CRLF line ends, text after the table. They must come back byte for byte.
const (
	qbHead = "# Forty game\r\n\r\nRules: `score &amp; bank` are &lt;ints&gt;; \"quotes\" & it's.\r\n\r\n" +
		"    if a < b && c > d:\r\n        return '&lt;'\r\n\r\n## Leaderboard\r\n\r\n" + publisher.MarkerOpen
	qbTail = publisher.MarkerClose + "\r\n\r\nÉté — questions in the comments please.\r\n"
)

type qbWorld struct {
	t      *testing.T
	api    *fakeapi.Server
	gh     *fakegithub.Server
	cy     *cron.Cycle
	ch     *config.Challenge
	client *scraper.Client
	out    *bytes.Buffer
	logs   *syncBuffer
	now    time.Time
	err    error // the last cycle's (publication failures only; others are fatal)
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func qbBot(id int64, name string, edit int) map[string]any {
	body := fmt.Sprintf("<h1>%s</h1><pre><code>class %s(Bot):\n    def make_throw(self, scores, last_round):\n        yield %d &lt; 1\n</code></pre>", name, name, edit)
	return map[string]any{"answer_id": qbQuestion + id, "question_id": qbQuestion, "creation_date": 1549000000 + len(name),
		"last_activity_date": 1549000000 + len(name) + edit, "score": 1, "body": body,
		"owner": map[string]any{"user_id": 10 + len(name), "display_name": "author of " + name, "user_type": "registered"}}
}

// newQBWorld: three bots far apart (the fake game's Skill prefix), so that the same bots
// played again keep their ranks outside the noise, and a question holding the markers.
func newQBWorld(t *testing.T) *qbWorld {
	t.Helper()
	w := &qbWorld{t: t, api: fakeapi.New(), gh: fakegithub.New(), out: &bytes.Buffer{}, logs: &syncBuffer{},
		now: time.Date(2026, 11, 26, 4, 0, 0, 0, time.UTC)}
	t.Cleanup(w.api.Close)
	t.Cleanup(w.gh.Close)
	w.api.SetQuestion(qbQuestion, "Forty & friends", qbHead+"\r\n(table goes here)\r\n"+qbTail, "king-of-the-hill", "python")
	w.api.SetAccessToken("write-token")
	for _, b := range []map[string]any{qbBot(1, "Skill200Top", 0), qbBot(2, "Skill100Mid", 0), qbBot(3, "LowBot", 0)} {
		if err := w.api.Put(qbQuestion, b); err != nil {
			t.Fatal(err)
		}
	}
	w.client = scraper.New(w.api.BaseURL(), "codegolf", "app-key")
	w.client.Clock = qbClock{w}
	dir := t.TempDir()
	w.cy = withFakeGame(t, crontest.NewCycle(t, dir))
	w.cy.Source = w.client
	w.cy.Out = w.out
	w.cy.Log = slog.New(slog.NewTextHandler(w.logs, nil))
	w.cy.Question = &cron.QuestionEditor{API: w.client, Token: "write-token", Now: func() time.Time { return w.now }}
	g, err := publisher.NewGitHub("o", "r", "main", "boards", w.gh.Token(), w.gh.BaseURL())
	if err != nil {
		t.Fatal(err)
	}
	w.cy.Sinks = append(w.cy.Sinks, g)
	w.ch, _ = w.cy.Config.Challenge("forty")
	w.ch.QuestionID, w.ch.Baselines, w.ch.Games = qbQuestion, false, 200
	w.ch.QuestionBoard = &config.QuestionBoard{Enabled: true, Top: 2, MinInterval: config.Duration(24 * time.Hour)}
	// The other challenges of the repository's config are not part of this world.
	w.cy.Config.Challenges = []config.Challenge{*w.ch}
	w.ch = &w.cy.Config.Challenges[0]
	return w
}

// qbClock is the API client's clock: the world's, so bans and backoffs follow it.
type qbClock struct{ w *qbWorld }

func (c qbClock) Now() time.Time { return c.w.now }
func (c qbClock) Sleep(ctx context.Context, d time.Duration) error {
	c.w.now = c.w.now.Add(d)
	return ctx.Err()
}

// cycle runs a daemon cycle for the challenge (probe, pending work, fetch, play or republish).
func (w *qbWorld) cycle(force bool) *cron.Report {
	w.t.Helper()
	reps, err := w.cy.RunSome(context.Background(), []string{"forty"}, cron.Options{Force: force})
	w.err = err
	if err != nil && !cron.IsPublishOnly(err) { // a failed question is a failed target, as GitHub's
		w.t.Fatalf("cycle: %v\n%s", err, w.out)
	}
	return reps[0]
}

func (w *qbWorld) state() *store.QuestionBoard {
	w.t.Helper()
	q, err := w.cy.Store.QuestionBoard(context.Background(), "forty")
	if err != nil || q == nil {
		w.t.Fatalf("question state: %v %v", q, err)
	}
	return q
}

func TestQuestionTableReplacesOnlyTheMarkedText(t *testing.T) {
	t.Parallel()
	w := newQBWorld(t)
	rep := w.cycle(false)
	edits := w.api.Edits()
	if len(edits) != 1 {
		t.Fatalf("%d edits, want 1\n%s", len(edits), w.out)
	}
	body := w.api.Body(qbQuestion)
	if !strings.HasPrefix(body, qbHead+"\r\n\r\n| # | Bot | Author | Points |\r\n") || !strings.HasSuffix(body, "\r\n\r\n"+qbTail) {
		t.Fatalf("the text around the markers changed:\n%q", body)
	}
	table := strings.TrimSuffix(strings.TrimPrefix(body, qbHead), qbTail)
	for _, want := range []string{"Skill200Top", "Skill100Mid", "author of Skill200Top", "Top 2 of 3 bots", fmt.Sprintf("run %d (seed %d", rep.RunID, rep.Seed),
		"[full leaderboard](http", "/o/r/blob/main/boards/forty.md)"} {
		if !strings.Contains(table, want) {
			t.Errorf("no %q in the table:\n%s", want, table)
		}
	}
	if strings.Contains(table, "LowBot") || strings.Contains(strings.ReplaceAll(table, "\r\n", ""), "\n") {
		t.Errorf("row 3 in a top 2, or a bare LF in a CRLF body:\n%q", table)
	}
	f := edits[0].Form
	if f.Get("title") != "Forty & friends" || f.Get("tags") != "king-of-the-hill;python" ||
		!strings.HasPrefix(f.Get("comment"), fmt.Sprintf("kothd: leaderboard of run %d (seed %d, 200 games)", rep.RunID, rep.Seed)) {
		t.Errorf("title, tags or comment: %v", f)
	}
	if st := w.state(); st.Outcome != cron.QuestionEdited || st.EditedRun != rep.RunID || st.OwedRun != 0 {
		t.Errorf("state %+v", st)
	}
	if len(rep.Published) != 3 || rep.Published[2] != cron.QuestionTarget("codegolf", qbQuestion) || w.err != nil {
		t.Errorf("published to %v (%v)", rep.Published, w.err)
	}

	// The same bots again, another seed: ranks within the noise, no edit, however long after.
	w.now = w.now.Add(48 * time.Hour)
	rep2 := w.cycle(true)
	if n := len(w.api.Edits()); n != 1 || rep2.RunID == rep.RunID {
		t.Fatalf("%d edits after a run with the same ranking (runs %d, %d)\n%s", n, rep.RunID, rep2.RunID, w.out)
	}
	if st := w.state(); st.Outcome != cron.QuestionUnchanged || st.EditedRun != rep.RunID {
		t.Errorf("state after the same ranking %+v", st)
	}
}

// A ranking that changed within min_interval waits; the cycle after the interval writes it,
// even when the question shows no activity (the table is owed).
func TestQuestionTableWaitsForMinInterval(t *testing.T) {
	t.Parallel()
	w := newQBWorld(t)
	w.cycle(false)
	// A new leader enters an hour later.
	w.now = w.now.Add(time.Hour)
	if err := w.api.Put(qbQuestion, qbBot(4, "Skill400New", 0)); err != nil {
		t.Fatal(err)
	}
	rep := w.cycle(false)
	if n := len(w.api.Edits()); n != 1 {
		t.Fatalf("%d edits within min_interval", n)
	}
	st := w.state()
	if st.Outcome != cron.QuestionWaiting || st.OwedRun != rep.RunID || !strings.Contains(st.Detail, "Skill400New entered the board") ||
		!strings.Contains(st.Detail, "2026-11-27T04:00") {
		t.Fatalf("state %+v", st)
	}
	// Still within: the cycle does not run for the table.
	w.now = w.now.Add(12 * time.Hour)
	w.cycle(false)
	if n := len(w.api.Edits()); n != 1 {
		t.Fatalf("%d edits within min_interval", n)
	}
	// Past it: no activity on the question since (our own edit aside), yet the table goes in.
	w.now = w.now.Add(12 * time.Hour)
	w.out.Reset()
	w.cycle(false)
	if n := len(w.api.Edits()); n != 2 {
		t.Fatalf("%d edits after min_interval\n%s", n, w.out)
	}
	if !strings.Contains(w.api.Body(qbQuestion), "Skill400New") {
		t.Errorf("the new leader is not in the question")
	}
	if st := w.state(); st.Outcome != cron.QuestionEdited || st.OwedRun != 0 || st.EditedRun != rep.RunID {
		t.Errorf("state %+v", st)
	}
	// Nothing owed now: a quiet cycle does nothing for the table.
	w.out.Reset()
	r := w.cycle(false)
	if r.Skipped == "" || strings.Contains(w.out.String(), "owes") {
		t.Errorf("a quiet cycle ran: %+v\n%s", r, w.out)
	}
}

// Without the markers, or when the table would make the body too long, nothing is edited,
// the reason is logged and stored, and the directory and GitHub still get the board.
func TestQuestionTableNeedsMarkersAndRoom(t *testing.T) {
	t.Parallel()
	w := newQBWorld(t)
	w.api.SetQuestion(qbQuestion, "Forty & friends", "A question whose host forgot the markers, long enough.\r\n", "king-of-the-hill")
	rep := w.cycle(false)
	if len(w.api.Edits()) != 0 || len(rep.Published) != 2 || len(w.gh.History("main")) != 2 {
		t.Fatalf("edits %d, published %v, commits %d", len(w.api.Edits()), rep.Published, len(w.gh.History("main")))
	}
	st := w.state()
	if st.Outcome != cron.QuestionNoMarkers || st.OwedRun != rep.RunID || !strings.Contains(st.Detail, "put "+publisher.MarkerOpen) {
		t.Errorf("state %+v", st)
	}
	if !strings.Contains(w.logs.String(), "question table: no-markers") {
		t.Errorf("no log line:\n%s", w.logs)
	}
	// The host adds the markers, but the question is nearly full.
	long := qbHead + "\r\n" + qbTail + strings.Repeat("x", scraper.MaxBodyChars-len(qbHead)-len(qbTail)-10)
	w.api.SetQuestion(qbQuestion, "Forty & friends", long, "king-of-the-hill")
	w.out.Reset()
	w.cycle(false) // owed: runs although the question shows no activity
	if !strings.Contains(w.out.String(), "the question's table still owes run") {
		t.Errorf("the cycle did not run for the owed table:\n%s", w.out)
	}
	if len(w.api.Edits()) != 0 || w.api.Body(qbQuestion) != long {
		t.Fatalf("edited a question past the limit")
	}
	if st := w.state(); st.Outcome != cron.QuestionTooLong || !strings.Contains(st.Detail, "more than the site's 30000") {
		t.Errorf("state %+v", st)
	}
}

// Token errors and throttles are explained and never stop play or the other sinks; the
// table is owed and written once the host fixed the token.
func TestQuestionTableAPIFailures(t *testing.T) {
	t.Parallel()
	w := newQBWorld(t)
	m := metrics.New("test", "", "")
	w.cy.Watch = m
	w.cy.Question.Token = "expired-token"
	rep := w.cycle(false)
	if rep.RunID == 0 || len(rep.Published) != 2 || len(w.api.Edits()) != 0 {
		t.Fatalf("run %d, published %v, edits %d", rep.RunID, rep.Published, len(w.api.Edits()))
	}
	// A failed target like the others: the cycle says publication failed (once exits 1),
	// naming the question.
	if pe, ok := w.err.(*cron.PublishError); !ok || len(pe.Failures) != 1 || pe.Failures[0].Target != cron.QuestionTarget("codegolf", qbQuestion) ||
		!strings.Contains(pe.Error(), "invalid_access_token") {
		t.Errorf("cycle error %v", w.err)
	}
	st := w.state()
	if st.Outcome != cron.QuestionFailed || !strings.Contains(st.Detail, "invalid_access_token") || !strings.Contains(st.Detail, "obtain a new token") {
		t.Errorf("state %+v", st)
	}
	w.cy.Question.Token = "" // the variable was not set at all
	n0 := w.api.Requests()
	w.cycle(false)
	if st := w.state(); !strings.Contains(st.Detail, "SE_ACCESS_TOKEN) not set: set SE_ACCESS_TOKEN in") || strings.Contains(st.Detail, "SE_API_KEY") {
		t.Errorf("state %+v", st)
	}
	if got := strings.Join(w.api.Log()[n0:], "\n"); strings.Contains(got, "filters/create") || strings.Contains(got, "kothdFakeBodyMarkdown") {
		t.Errorf("requests spent on a write that cannot be made:\n%s", got)
	}
	// The key missing instead: named, and still no request for the question.
	w.cy.Question.Token, w.client.Key = "write-token", ""
	n0 = w.api.Requests()
	w.cycle(false)
	if st := w.state(); !strings.Contains(st.Detail, "the application key (SE_API_KEY, or api_key in the config) not set: set SE_API_KEY in") || strings.Contains(st.Detail, "SE_ACCESS_TOKEN)") {
		t.Errorf("state %+v", st)
	}
	if got := strings.Join(w.api.Log()[n0:], "\n"); strings.Contains(got, "filters/create") || strings.Contains(got, "kothdFakeBodyMarkdown") {
		t.Errorf("requests spent on a write that cannot be made:\n%s", got)
	}
	w.client.Key = "app-key"
	// The host fixes the token, and the API throttles the edit: every call waits the ban out.
	w.cy.Question.Token = "write-token"
	w.api.Fail(fakeapi.Fault{Method: "edit", ErrorID: 502, ErrorName: "throttle_violation", ErrorMessage: "too many requests from this IP, more requests available in 7200 seconds"})
	w.cycle(false)
	if st := w.state(); st.Outcome != cron.QuestionFailed || !strings.Contains(st.Detail, "throttled") {
		t.Errorf("state %+v", st)
	}
	n := w.api.Requests()
	if _, err := w.cy.RunSome(context.Background(), []string{"forty"}, cron.Options{}); err == nil {
		t.Errorf("a cycle during the ban fetched")
	}
	if w.api.Requests() != n {
		t.Errorf("%d requests during the ban", w.api.Requests()-n)
	}
	w.now = w.now.Add(2*time.Hour + time.Second)
	w.cycle(false)
	if len(w.api.Edits()) != 1 || w.state().Outcome != cron.QuestionEdited {
		t.Errorf("after the ban: %d edits, %+v\n%s", len(w.api.Edits()), w.state(), w.out)
	}
	if !strings.HasPrefix(w.api.Body(qbQuestion), qbHead) {
		t.Errorf("body %q", w.api.Body(qbQuestion))
	}
	// The metrics count the question as a target: its failures (expired token, missing
	// token, missing key, throttle) and its last successful publication.
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	label := `{challenge="forty",target="` + cron.QuestionTarget("codegolf", qbQuestion) + `"}`
	if got := rec.Body.String(); !strings.Contains(got, "kothd_publication_failures_total"+label+" 4") ||
		!strings.Contains(got, "kothd_last_publication_success_timestamp_seconds"+label+" ") {
		t.Errorf("metrics of the question target:\n%s", got)
	}
}

// Someone else rolls the question back to an old table: the next probe sees the question's
// last_edit_date move past kothd's own edit, and the table is restored once min_interval
// has passed since kothd's last edit (a repair bumps the question like any edit). Before,
// the cycle said "unchanged: the question shows run 1" for ever.
func TestQuestionTableRestoredAfterAnotherEdit(t *testing.T) {
	t.Parallel()
	w := newQBWorld(t)
	w.cycle(false)
	if len(w.api.Edits()) != 1 {
		t.Fatalf("%d edits", len(w.api.Edits()))
	}
	old := qbHead + "\r\n\r\n| # | Bot | Score |\r\n|---|---|---|\r\n| 1 | OldLeader | 99 |\r\n\r\n" + qbTail
	w.api.EditByOther(qbQuestion, old, time.Now().Unix()+60)
	// Within min_interval: the question is read (the table is gone), and the repair waits.
	w.now = w.now.Add(time.Hour)
	w.cycle(false)
	st := w.state()
	if len(w.api.Edits()) != 1 || st.Outcome != cron.QuestionWaiting || !strings.Contains(st.Detail, "someone else edited the question") || st.OwedRun == 0 {
		t.Fatalf("%d edits, state %+v\n%s", len(w.api.Edits()), st, w.out)
	}
	// Past it: a quiet question, yet the cycle runs for the table and restores it.
	w.now = w.now.Add(24 * time.Hour)
	w.out.Reset()
	w.cycle(false)
	if len(w.api.Edits()) != 2 {
		t.Fatalf("%d edits after min_interval\n%s", len(w.api.Edits()), w.out)
	}
	body := w.api.Body(qbQuestion)
	if strings.Contains(body, "OldLeader") || !strings.Contains(body, "Skill200Top") || !strings.HasPrefix(body, qbHead) || !strings.HasSuffix(body, qbTail) {
		t.Errorf("not restored:\n%s", body)
	}
	if c := w.api.Edits()[1].Form.Get("comment"); !strings.Contains(c, "restored the leaderboard") {
		t.Errorf("edit comment %q", c)
	}
	if st := w.state(); st.Outcome != cron.QuestionEdited || st.OwedRun != 0 || st.SiteEditDate > st.OwnEditDate {
		t.Errorf("state %+v", st)
	}
	// Our own edit is not someone else's: the next quiet cycle does nothing.
	w.now = w.now.Add(48 * time.Hour)
	w.out.Reset()
	if r := w.cycle(false); r.Skipped == "" || len(w.api.Edits()) != 2 {
		t.Errorf("a quiet cycle after our own edit ran or edited: %+v\n%s", r, w.out)
	}
	// An edit elsewhere in the question that keeps the table: read, found intact, no edit.
	w.api.EditByOther(qbQuestion, strings.Replace(w.api.Body(qbQuestion), "questions in the comments", "questions in chat", 1), time.Now().Unix()+120)
	w.out.Reset()
	w.cycle(false)
	if len(w.api.Edits()) != 2 || !strings.Contains(w.state().Detail, "still shows the table") {
		t.Errorf("%d edits after an edit that kept the table; state %+v\n%s", len(w.api.Edits()), w.state(), w.out)
	}
}

// Enabling question_board on a quiet question: the first cycle after it looks at the
// question, without waiting for someone to post.
func TestQuestionTableEnabledOnAQuietQuestion(t *testing.T) {
	t.Parallel()
	w := newQBWorld(t)
	w.ch.QuestionBoard.Enabled = false
	w.cycle(false)
	w.out.Reset()
	if r := w.cycle(false); r.Skipped == "" {
		t.Fatalf("the question is not quiet: %+v", r)
	}
	w.ch.QuestionBoard.Enabled = true
	w.out.Reset()
	w.cycle(false)
	if len(w.api.Edits()) != 1 || !strings.Contains(w.out.String(), "never looked at") {
		t.Fatalf("%d edits after enabling the table\n%s", len(w.api.Edits()), w.out)
	}
}

// board_url gives the table its link to the full board without GitHub (a web server over
// output_dir); before, only the GitHub sink made one.
func TestQuestionTableLinksBoardURL(t *testing.T) {
	t.Parallel()
	w := newQBWorld(t)
	w.cy.Sinks = w.cy.Sinks[:1] // the output directory only
	w.cy.Config.BoardURL = "https://koth.example.org/boards/"
	w.cycle(false)
	if body := w.api.Body(qbQuestion); !strings.Contains(body, "[full leaderboard](https://koth.example.org/boards/forty.md)") {
		t.Errorf("no link to board_url:\n%s", body)
	}
}
