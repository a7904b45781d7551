package scraper_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/scraper"
	"github.com/kothd/kothd/scraper/fakeapi"
)

// Every reference the API writes decodes to the character it stands for, and every '&'
// that starts none stays: the markdown comes back byte for byte.
func TestDecodeEntities(t *testing.T) {
	for in, want := range map[string]string{
		"a &amp;amp; b": "a &amp; b",
		"&lt;!-- x --&gt; &quot;q&quot; it&#39;s": `<!-- x --> "q" it's`,
		"&#60;&#x3C;&#X3c;&apos;":                 "<<<'",
		"AT&T &copy &copy; &#0; &#xZZ; &# &;":     "AT&T &copy &copy; &#0; &#xZZ; &# &;",
		"&#128512; crlf\r\nend &":                 "😀 crlf\r\nend &",
		"&#1114112; &#x-1; &#+60;":                "&#1114112; &#x-1; &#+60;",
	} {
		if got := scraper.DecodeEntities(in); got != want {
			t.Errorf("DecodeEntities(%q) = %q, want %q", in, got, want)
		}
	}
	// Encoding then decoding is the identity on any text, stray references included.
	for _, s := range []string{"x &amp; y", "<b>&lt;</b>", "it's \"q\" &#39;", "a\r\nb\t&", "日本 & 😀"} {
		if got := scraper.DecodeEntities(scraper.EncodeEntities(s)); got != s {
			t.Errorf("round trip of %q gave %q", s, got)
		}
	}
}

// markdownBody is a question body with everything an edit must keep: entities in code,
// CRLF line ends, quotes, non-ASCII text and text after the markers.
const markdownBody = "# King of the Hill\r\n\r\nRules: `a &amp; b` &lt;- literal.\r\n\r\n" +
	"    if x < 3 && y > 2: print(\"it's\")\r\n\r\n<!-- kothd:leaderboard -->\r\nold table\r\n<!-- /kothd:leaderboard -->\r\n\r\nÉté — fin.\r\n"

func TestQuestionMarkdownRoundTrip(t *testing.T) {
	api := fakeapi.New()
	defer api.Close()
	api.SetQuestion(177765, `Forty & "friends" <3`, markdownBody, "king-of-the-hill", "python")
	c, _ := newClient(api)
	for range 2 {
		q, err := c.QuestionMarkdown(context.Background(), 177765)
		if err != nil {
			t.Fatal(err)
		}
		if q.BodyMarkdown != markdownBody || q.Title != `Forty & "friends" <3` || strings.Join(q.Tags, ";") != "king-of-the-hill;python" {
			t.Fatalf("question as read:\n%q\n%q %q", q.BodyMarkdown, q.Title, q.Tags)
		}
	}
	filters := 0
	for _, u := range api.Log() {
		if strings.Contains(u, "/filters/create") {
			filters++
		}
		if strings.Contains(u, "/questions/") && !strings.Contains(u, "filter="+url.QueryEscape(fakeapi.BodyFilter)) {
			t.Errorf("question fetched without the body filter: %s", u)
		}
	}
	if filters != 1 {
		t.Errorf("%d filter creations for two fetches, want 1", filters)
	}
}

func TestEditQuestionSendsTheFormTheAPIWants(t *testing.T) {
	api := fakeapi.New()
	defer api.Close()
	api.SetQuestion(1, "T & t", markdownBody, "a", "b")
	api.SetAccessToken("tok")
	c, _ := newClient(api)
	c.Key = "appkey"
	body := strings.Replace(markdownBody, "old table", "new & <b>table</b>", 1)
	q, err := c.EditQuestion(context.Background(), 1, scraper.QuestionEdit{Body: body, Title: "T & t", Tags: []string{"a", "b"}, Comment: "kothd: run 3"}, "tok")
	if err != nil {
		t.Fatal(err)
	}
	if api.Body(1) != body || q.BodyMarkdown != body {
		t.Fatalf("site holds %q, response says %q", api.Body(1), q.BodyMarkdown)
	}
	e := api.Edits()
	if len(e) != 1 {
		t.Fatalf("%d edits", len(e))
	}
	f := e[0].Form
	if f.Get("title") != "T & t" || f.Get("tags") != "a;b" || f.Get("comment") != "kothd: run 3" || f.Get("key") != "appkey" ||
		f.Get("access_token") != "tok" || f.Get("site") != "codegolf" {
		t.Errorf("form: %v", f)
	}
	for _, u := range api.Log() {
		if strings.Contains(u, "tok") {
			t.Errorf("the access token travelled in a URL: %s", u)
		}
	}
}

// Each refusal of the API comes back as its error, with advice that says what the host
// must do, and a failed edit is not repeated within the call.
func TestEditQuestionErrorsAndAdvice(t *testing.T) {
	api := fakeapi.New()
	defer api.Close()
	api.SetQuestion(1, "T", markdownBody, "a")
	api.SetAccessToken("good")
	c, _ := newClient(api)
	c.Key = "appkey"
	edit := scraper.QuestionEdit{Body: markdownBody + "x", Title: "T", Tags: []string{"a"}, Comment: "c"}
	ctx := context.Background()

	before := api.Requests()
	if _, err := c.EditQuestion(ctx, 1, edit, ""); !errors.Is(err, scraper.ErrNoWriteCredentials) || !strings.Contains(scraper.WriteAdvice(err), "SE_ACCESS_TOKEN") {
		t.Errorf("no token: %v", err)
	}
	if api.Requests() != before {
		t.Errorf("a request was made without a token")
	}
	_, err := c.EditQuestion(ctx, 1, edit, "stale")
	var ae *scraper.APIError
	if !errors.As(err, &ae) || ae.ID != 402 || !strings.Contains(scraper.WriteAdvice(err), "obtain a new token") {
		t.Errorf("stale token: %v / %s", err, scraper.WriteAdvice(err))
	}
	for _, tc := range []struct {
		id     int
		name   string
		advice string
	}{
		{403, "access_denied", "write_access"},
		{406, "access_token_compromised", "obtain a new token"},
		{407, "write_failed", "refused the edit"},
		{405, "key_required", "SE_API_KEY"},
	} {
		api.Fail(fakeapi.Fault{Method: "edit", ErrorID: tc.id, ErrorName: tc.name, ErrorMessage: "from the fake"})
		_, err := c.EditQuestion(ctx, 1, edit, "good")
		if !errors.As(err, &ae) || ae.ID != tc.id || !strings.Contains(scraper.WriteAdvice(err), tc.advice) {
			t.Errorf("%s: %v / %q", tc.name, err, scraper.WriteAdvice(err))
		}
	}
	// A transient failure of a write is not retried at once (the next cycle does).
	n := len(editRequests(api))
	api.Fail(fakeapi.Fault{Method: "edit", ErrorID: 500, ErrorName: "internal_error", ErrorMessage: "oops"})
	if _, err := c.EditQuestion(ctx, 1, edit, "good"); err == nil {
		t.Error("internal_error: no error")
	}
	if got := len(editRequests(api)) - n; got != 1 {
		t.Errorf("%d edit requests for one internal_error, want 1", got)
	}
	if len(api.Edits()) != 0 {
		t.Errorf("an edit was applied: %v", api.Edits())
	}
}

// A backoff on an edit's response holds the next edit back; a throttle_violation stops
// every call until the ban ends.
func TestEditQuestionHonoursBackoffAndThrottle(t *testing.T) {
	api := fakeapi.New()
	defer api.Close()
	api.SetQuestion(1, "T", markdownBody, "a")
	api.SetAccessToken("good")
	c, clk := newClient(api)
	c.Key = "appkey"
	c.MaxWait = time.Minute
	ctx := context.Background()
	edit := func(s string) error {
		_, err := c.EditQuestion(ctx, 1, scraper.QuestionEdit{Body: markdownBody + s, Title: "T", Tags: []string{"a"}, Comment: "c"}, "good")
		return err
	}
	api.Fail(fakeapi.Fault{Method: "edit", Backoff: 30})
	if err := edit("1"); err != nil {
		t.Fatal(err)
	}
	if err := edit("2"); err != nil {
		t.Fatal(err)
	}
	if s := clk.Sleeps(); len(s) != 1 || s[0] != 30*time.Second {
		t.Errorf("sleeps %v, want one of 30s before the second edit", s)
	}
	api.Fail(fakeapi.Fault{Method: "edit", Backoff: 600})
	if err := edit("3"); err != nil {
		t.Fatal(err)
	}
	n := api.Requests()
	if err := edit("4"); !errors.Is(err, scraper.ErrBackoff) {
		t.Errorf("backoff beyond MaxWait: %v", err)
	}
	if api.Requests() != n {
		t.Error("a request was made during the backoff")
	}
	clk.Advance(601 * time.Second)
	api.Fail(fakeapi.Fault{Method: "edit", ErrorID: 502, ErrorName: "throttle_violation", ErrorMessage: "too many requests from this IP, more requests available in 3600 seconds"})
	if err := edit("5"); !errors.Is(err, scraper.ErrThrottled) || !strings.Contains(scraper.WriteAdvice(err), "throttled") {
		t.Fatalf("throttle: %v", err)
	}
	n = api.Requests()
	if _, err := c.QuestionMarkdown(ctx, 1); !errors.Is(err, scraper.ErrThrottled) {
		t.Errorf("a read during the ban: %v", err)
	}
	if err := edit("6"); !errors.Is(err, scraper.ErrThrottled) {
		t.Errorf("an edit during the ban: %v", err)
	}
	if api.Requests() != n {
		t.Error("requests were made during the ban")
	}
	clk.Advance(3601 * time.Second)
	if err := edit("7"); err != nil {
		t.Errorf("after the ban: %v", err)
	}
}

func editRequests(api *fakeapi.Server) []string {
	var out []string
	for _, u := range api.Log() {
		if strings.HasSuffix(strings.SplitN(u, "?", 2)[0], "/edit") {
			out = append(out, u)
		}
	}
	return out
}
