package cron_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/cron/crontest"
	"github.com/kothd/kothd/internal/metrics"
	"github.com/kothd/kothd/scraper"
	"github.com/kothd/kothd/scraper/fakeapi"
	"github.com/kothd/kothd/store"
)

// Comments on answers not entered, end to end: answers served by the fake API to the client
// a host runs, extracted, built (real gcc in the real sandbox) and validated by the cycle,
// the fake game playing the bots that enter, the real store, and the same client posting
// the comments to the fake API's /posts/{id}/comments/add.

const cmQuestion = 115303 // the bankheist challenge: argv bots in C and Python

type cmWorld struct {
	t      *testing.T
	api    *fakeapi.Server
	cy     *cron.Cycle
	client *scraper.Client
	out    *bytes.Buffer
	now    time.Time
	when   int64 // the fake API's activity clock (Unix seconds)
	posted map[int64]bool
}

// cmAnswer is answer n of the question, with the given body, by its own author.
func (w *cmWorld) put(n int64, body string) {
	w.t.Helper()
	w.when++
	a := map[string]any{"answer_id": cmQuestion + n, "question_id": cmQuestion, "creation_date": 1549000000 + n,
		"last_activity_date": w.when, "score": 1, "body": body,
		"owner": map[string]any{"user_id": 100 + n, "display_name": fmt.Sprintf("author%d", n), "user_type": "registered"}}
	if w.posted[n] {
		a["last_edit_date"] = w.when // an edit: the answer's next revision on the site
	}
	w.posted[n] = true
	if err := w.api.Put(cmQuestion, a); err != nil {
		w.t.Fatal(err)
	}
}

func newCMWorld(t *testing.T, perCycle int) *cmWorld {
	t.Helper()
	return newCMWorldOf(t, perCycle, true)
}

// newCMWorldOf: the fake game when fake, else the challenge's real engine (Bank Heist).
func newCMWorldOf(t *testing.T, perCycle int, fake bool) *cmWorld {
	t.Helper()
	w := &cmWorld{t: t, api: fakeapi.New(), out: &bytes.Buffer{}, now: time.Date(2026, 11, 26, 4, 0, 0, 0, time.UTC), when: 1600000000, posted: map[int64]bool{}}
	t.Cleanup(w.api.Close)
	w.api.AddQuestion(cmQuestion, "Bank Heist")
	w.api.SetAccessToken("write-token")
	w.client = scraper.New(w.api.BaseURL(), "codegolf", "app-key")
	w.client.Clock = cmClock{w}
	dir := t.TempDir()
	w.cy = crontest.NewCycle(t, dir)
	if fake {
		w.cy = withFakeGame(t, w.cy)
	}
	w.cy.Source = w.client
	w.cy.Out = w.out
	w.cy.Log = slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))
	w.cy.Question = &cron.QuestionEditor{API: w.client, Token: "write-token", Now: func() time.Time { return w.now }}
	w.cy.Config.BoardURL = "https://koth.example.org/boards/"
	ch, _ := w.cy.Config.Challenge("bankheist")
	ch.AnswerComments = &config.AnswerComments{Enabled: true, MaxPerCycle: perCycle}
	w.cy.Config.Challenges = []config.Challenge{*ch}
	return w
}

type cmClock struct{ w *cmWorld }

func (c cmClock) Now() time.Time { return c.w.now }
func (c cmClock) Sleep(ctx context.Context, d time.Duration) error {
	c.w.now = c.w.now.Add(d)
	return ctx.Err()
}

func (w *cmWorld) cycle() *cron.Report {
	w.t.Helper()
	return w.cycleOf(10)
}

func (w *cmWorld) cycleOf(games int) *cron.Report {
	w.t.Helper()
	w.out.Reset()
	reps, err := w.cy.RunSome(context.Background(), []string{"bankheist"}, cron.Options{Games: games})
	if err != nil && !cron.IsPublishOnly(err) {
		w.t.Fatalf("cycle: %v\n%s", err, w.out)
	}
	return reps[0]
}

// The answers of the test, each failing one way, and two that enter.
const (
	cmGood      = "<h1>Good One, Python 3</h1><pre><code>print(0)\n</code></pre>"
	cmGood2     = "<h1>Steady, Python 3</h1><pre><code>print(1)\n</code></pre>"
	cmNoCode    = "<h1>Later, Python 3</h1><p>Code coming soon, promise.</p>"
	cmUnknown   = "<h1>Odd, Brainfuck</h1><pre><code>+[-]\n</code></pre>"
	cmBroken    = "<h1>Broken, C</h1><pre><code>int main(void) { return undeclared_name; }\n</code></pre>"
	cmBroken2   = "<h1>Broken, C</h1><pre><code>int main(void) { return other_undeclared; }\n</code></pre>"
	cmSleeper   = "<h1>Sleeper, Python 3</h1><pre><code>print(0)\n</code></pre>"
	cmSleeper2  = "<h1>Sleeper, Python 3</h1><pre><code>print(5)\n</code></pre>"
	cmDuplicate = "<h1>Good One, Python 3</h1><pre><code>print(2)\n</code></pre>"
	cmRenamed   = "<h1>Third One, Python 3</h1><pre><code>print(2)\n</code></pre>"
	// Markdown, links, a bare URL, www and a ping in the bot's name, which the reason quotes.
	cmHostile = "<h1>**Bold** [click](https://evil.example/x) `code` _it_ www.evil.example http://bare.example/ @Shog9 \\*, Python 3</h1><p>no code here</p>"
)

// Each answer not entered gets exactly one comment, saying why, with the board's link; a
// second cycle posts none; an edit that still fails (otherwise) gets one more, an edit that
// fails the very same way none, an edit that fixes it none. max_per_cycle holds the rest
// for the next cycle, which runs although the question is quiet.
func TestCommentsOnAnswersNotEntered(t *testing.T) {
	t.Parallel()
	w := newCMWorld(t, 4)
	m := metrics.New("test", "", "")
	w.cy.Watch = m
	for n, body := range []string{cmGood, cmGood2, cmNoCode, cmUnknown, cmBroken, cmSleeper, cmDuplicate, cmHostile} {
		w.put(int64(n+1), body)
	}
	failing := map[int64]string{ // answer → what its comment must say
		cmQuestion + 3: "no code", cmQuestion + 4: "Brainfuck", cmQuestion + 5: "undeclared\\_name",
		cmQuestion + 6: "failed validation", cmQuestion + 7: "Good One", cmQuestion + 8: "click",
	}
	rep := w.cycle()
	if rep.Entered < 2 || len(rep.Rejected) != 6 {
		t.Fatalf("entered %d, rejected %+v\n%s", rep.Entered, rep.Rejected, w.out)
	}
	if n := len(w.api.Comments()); n != 4 {
		t.Fatalf("%d comments in the first cycle, want max_per_cycle 4\n%s", n, w.out)
	}
	// The question is quiet: the held comments make the next cycle run anyway.
	w.cycle()
	cs := w.api.Comments()
	if len(cs) != 6 || !strings.Contains(w.out.String(), "wait for answer_comments.max_per_cycle") {
		t.Fatalf("%d comments after the second cycle, want 6\n%s", len(cs), w.out)
	}
	seen := map[int64]bool{}
	for _, c := range cs {
		want, ok := failing[c.PostID]
		if !ok || seen[c.PostID] {
			t.Errorf("comment on answer %d (failing: %v, seen before: %v): %s", c.PostID, ok, seen[c.PostID], c.Body)
		}
		seen[c.PostID] = true
		if !strings.Contains(c.Body, want) || !strings.Contains(c.Body, "https://koth.example.org/boards/bankheist.md") ||
			!strings.HasPrefix(c.Body, "kothd: Revision 1 of this answer is not entered") {
			t.Errorf("comment on %d lacks %q or the board's link: %s", c.PostID, want, c.Body)
		}
		if n := len([]rune(c.Body)); n > scraper.MaxCommentChars || n < scraper.MinCommentChars {
			t.Errorf("comment of %d characters", n)
		}
		// As the site renders it: the only link is the board's, nobody is pinged, no
		// formatting comes from the answer's words.
		if strings.Count(c.HTML, "<a ") != 1 || !strings.Contains(c.HTML, `<a href="https://koth.example.org/boards/bankheist.md">`) ||
			len(c.Pings) != 0 || strings.Contains(c.HTML, "<b>") || strings.Contains(c.HTML, "<i>") || strings.Contains(c.HTML, "<code>") {
			t.Errorf("the comment on %d does something: pings %v\n%s\n%s", c.PostID, c.Pings, c.Body, c.HTML)
		}
		t.Logf("comment on answer %d (%d chars):\n%s", c.PostID, len([]rune(c.Body)), c.Body)
	}
	// Nothing new: no comment, however many cycles.
	w.put(1, cmGood+"<p>edited</p>") // activity, so the cycle runs
	w.cycle()
	if n := len(w.api.Comments()); n != 6 {
		t.Fatalf("%d comments after a cycle with nothing new", n)
	}
	// Edits: the C answer still fails, otherwise; the sleeper's new code fails the very
	// same way; the duplicate takes a free name and enters. (A revision is the answer's
	// code as kothd extracts it: an edit of the prose alone is none.)
	w.put(5, cmBroken2)
	w.put(6, cmSleeper2)
	w.put(7, cmRenamed)
	rep = w.cycle()
	cs = w.api.Comments()
	if len(cs) != 7 || cs[6].PostID != cmQuestion+5 || !strings.Contains(cs[6].Body, "other\\_undeclared") || !strings.HasPrefix(cs[6].Body, "kothd: Revision 2 of this answer") {
		t.Fatalf("after the edits: %d comments, the last %+v\n%s", len(cs), cs[len(cs)-1], w.out)
	}
	t.Logf("comment after the edit of answer %d (%d chars):\n%s", cs[6].PostID, len([]rune(cs[6].Body)), cs[6].Body)
	var status string
	if err := w.cy.Store.DB().QueryRow(`SELECT state FROM answer_comments WHERE answer_id = ? ORDER BY revision DESC LIMIT 1`, cmQuestion+6).Scan(&status); err != nil || status != store.CommentSame {
		t.Errorf("the sleeper's second revision: %q %v", status, err)
	}
	for _, r := range rep.Rejected {
		if r.AnswerID == cmQuestion+7 {
			t.Errorf("the fixed answer is still rejected: %+v", r)
		}
	}
	counts, err := w.cy.Store.CommentCounts(context.Background(), "bankheist")
	if err != nil || counts.Posted != 7 || counts.Refused != 0 || counts.Same != 1 {
		t.Errorf("counts %+v %v", counts, err)
	}
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if !strings.Contains(rec.Body.String(), `kothd_answer_comments_total{challenge="bankheist",outcome="posted"} 7`) {
		t.Errorf("metrics:\n%s", rec.Body)
	}
}

// The API's refusals are said clearly, hold the cycle's other comments without a request
// each, never stop play or the boards, and the comments go out once the host fixed it.
func TestCommentsRefused(t *testing.T) {
	t.Parallel()
	w := newCMWorld(t, 10)
	m := metrics.New("test", "", "")
	w.cy.Watch = m
	for n, body := range []string{cmGood, cmGood2, cmNoCode, cmSleeper} {
		w.put(int64(n+1), body)
	}
	comments := func() int {
		n := 0
		for _, u := range w.api.Log() {
			if strings.Contains(u, "/comments/add") {
				n++
			}
		}
		return n
	}
	detail := func(answer int64) (string, string) {
		var state, d string
		if err := w.cy.Store.DB().QueryRow(`SELECT state, detail FROM answer_comments WHERE answer_id = ?`, cmQuestion+answer).Scan(&state, &d); err != nil {
			t.Fatal(err)
		}
		return state, d
	}
	// No token: named, and no request at all.
	w.cy.Question.Token = ""
	rep := w.cycle()
	if rep.RunID == 0 || comments() != 0 {
		t.Fatalf("run %d, %d comment requests without a token", rep.RunID, comments())
	}
	if st, d := detail(3); st != store.CommentOwed || !strings.Contains(d, "SE_ACCESS_TOKEN) not set") {
		t.Errorf("without a token: %s %s", st, d)
	}
	// The account lacks the privilege: one request, refused; the other comment is held.
	w.cy.Question.Token = "write-token"
	w.api.SetReputation(1)
	w.put(1, cmGood+"<p>edit</p>")
	w.cycle()
	if comments() != 1 || len(w.api.Comments()) != 0 {
		t.Fatalf("%d requests, %d comments with an account of 1 reputation", comments(), len(w.api.Comments()))
	}
	if !strings.Contains(w.out.String(), "the account behind SE_ACCESS_TOKEN cannot comment on others' posts: it needs 50 reputation on the site") {
		t.Errorf("the privilege is not named:\n%s", w.out)
	}
	if st, d := detail(4); st != store.CommentOwed || !strings.Contains(d, "50 reputation") {
		t.Errorf("the held comment: %s %s", st, d)
	}
	// A token without write_access.
	w.api.SetReputation(1000)
	w.api.SetReadOnlyToken("read-token")
	w.cy.Question.Token = "read-token"
	w.put(1, cmGood+"<p>edit 2</p>")
	w.cycle()
	if !strings.Contains(w.out.String(), "lacks the write_access scope") || len(w.api.Comments()) != 0 {
		t.Errorf("read-only token:\n%s", w.out)
	}
	// The site takes a comment for a duplicate (or one too soon): held, tried again later.
	w.cy.Question.Token = "write-token"
	w.api.Fail(fakeapi.Fault{Method: "comment", ErrorID: 409, ErrorName: "duplicate_request", ErrorMessage: "A duplicate request was detected"})
	w.put(1, cmGood+"<p>edit 3</p>")
	w.cycle()
	if len(w.api.Comments()) != 0 || !strings.Contains(w.out.String(), "duplicate_request") {
		t.Errorf("after a 409: %d comments\n%s", len(w.api.Comments()), w.out)
	}
	// Fixed: both go out, once.
	w.put(1, cmGood+"<p>edit 4</p>")
	w.cycle()
	w.put(1, cmGood+"<p>edit 5</p>")
	w.cycle()
	if n := len(w.api.Comments()); n != 2 {
		t.Fatalf("%d comments once the host fixed it, want 2\n%s", n, w.out)
	}
	counts, err := w.cy.Store.CommentCounts(context.Background(), "bankheist")
	if err != nil || counts.Posted != 2 || counts.Owed != 0 {
		t.Errorf("counts %+v %v", counts, err)
	}
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if got := rec.Body.String(); !strings.Contains(got, `kothd_answer_comments_total{challenge="bankheist",outcome="posted"} 2`) ||
		!strings.Contains(got, `kothd_answer_comments_total{challenge="bankheist",outcome="refused"} 3`) {
		t.Errorf("metrics:\n%s", got)
	}
}

// The comment's text: hostile words stay words in the site's mini-markdown, and a long
// reason is cut so that the comment keeps its link within 600 characters.
func TestCommentInert(t *testing.T) {
	hostile := "**b** __b__ *i* _i_ `c` [l](https://evil.example) https://bare.example www.evil.example @Shog9 \\` \\*x\\* <b>x</b> ftp://f.example"
	out := cron.CommentInert(hostile)
	html, pings := fakeapi.RenderComment(out)
	if strings.Contains(html, "<a ") || strings.Contains(html, "<b>") || strings.Contains(html, "<i>") || strings.Contains(html, "<code>") || len(pings) != 0 {
		t.Errorf("inert text does something:\n%s\n%s\n%v", out, html, pings)
	}
	if !strings.Contains(html, "**b** __b__ *i* _i_ `c` [l](https") {
		t.Errorf("the text does not read as written: %s", html)
	}
}

// A bot benched for faults (real Bank Heist, real bash bots in the sandbox: it answers its
// first calls, which validation makes, then only garbage) gets one comment with the first
// fault's input.
func TestCommentOnABenchedBot(t *testing.T) {
	t.Parallel()
	w := newCMWorldOf(t, 5, false)
	ch := &w.cy.Config.Challenges[0]
	if err := yaml.Unmarshal([]byte("games_per_tournament: 30\n"), &ch.Options); err != nil {
		t.Fatal(err)
	}
	crontest.Patient(ch)
	w.put(1, "<h1>Steady, Bash</h1><pre><code>echo 1\n</code></pre>")
	w.put(2, "<h1>Flaky, Bash</h1><pre><code>n=$(cat count 2>/dev/null || echo 0)\necho $((n+1)) > count\nif [ \"$n\" -lt 3 ]; then echo 1; else echo 'a lot'; fi\n</code></pre>")
	rep := w.cycleOf(0)
	if rep.RunID == 0 || len(rep.Rejected) != 0 {
		t.Fatalf("run %d, rejected %+v\n%s", rep.RunID, rep.Rejected, w.out)
	}
	cs := w.api.Comments()
	if len(cs) != 1 || cs[0].PostID != cmQuestion+2 || !strings.HasPrefix(cs[0].Body, "kothd: Revision 1 of this answer was benched for faults in the last run. Flaky: benched from game") ||
		!strings.Contains(cs[0].Body, "without being sent). First fault: bad output") || !strings.Contains(cs[0].Body, "is not an integer; input: {") {
		t.Fatalf("comments %+v\n%s", cs, w.out)
	}
	t.Logf("comment on answer %d (%d chars):\n%s", cs[0].PostID, len([]rune(cs[0].Body)), cs[0].Body)
}
