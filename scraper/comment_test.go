package scraper_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/kothd/kothd/scraper"
	"github.com/kothd/kothd/scraper/fakeapi"
)

// Comments through the client against the fake API's /posts/{id}/comments/add, with its
// real errors: what is sent, what is refused before any request, and what each refusal
// means for the host.
func TestAddComment(t *testing.T) {
	ctx := context.Background()
	api := fakeapi.New()
	defer api.Close()
	fill(t, api, 115303, 2)
	api.SetAccessToken("good")
	c, clk := newClient(api)
	c.Key = "app-key"

	cm, err := c.AddComment(ctx, 115304, "kothd: a comment long enough", "good")
	if err != nil || cm.CommentID == 0 || cm.PostID != 115304 {
		t.Fatalf("comment %+v, %v", cm, err)
	}
	got := api.Comments()
	if len(got) != 1 || got[0].Form.Get("key") != "app-key" || got[0].Form.Get("site") != "codegolf" || got[0].Form.Get("access_token") != "good" {
		t.Fatalf("sent %+v", got)
	}
	// The next comment waits out the site's gap between two comments.
	before := clk.Now()
	if _, err := c.AddComment(ctx, 115305, "kothd: another comment here", "good"); err != nil {
		t.Fatal(err)
	}
	if d := clk.Now().Sub(before); d < 5e9 {
		t.Errorf("the second comment came %s after the first", d)
	}
	// Out of the site's bounds, or without credentials: refused before any request.
	n := api.Requests()
	for _, body := range []string{"too short", strings.Repeat("x", 601)} {
		if _, err := c.AddComment(ctx, 115304, body, "good"); err == nil || !strings.Contains(err.Error(), "outside the site's 15 to 600") {
			t.Errorf("%d characters: %v", len(body), err)
		}
	}
	if _, err := c.AddComment(ctx, 115304, "kothd: a comment long enough", ""); !errors.Is(err, scraper.ErrNoWriteCredentials) || !strings.Contains(err.Error(), "SE_ACCESS_TOKEN") {
		t.Errorf("without a token: %v", err)
	}
	if api.Requests() != n {
		t.Errorf("%d requests for comments that could not be sent", api.Requests()-n)
	}
	// The API's refusals, and what they mean.
	for _, tc := range []struct {
		name   string
		setup  func()
		token  string
		body   string
		advice string
		stop   bool
	}{
		{"privilege", func() { api.SetReputation(1) }, "good", "kothd: not allowed to comment", "the account behind SE_ACCESS_TOKEN cannot comment on others' posts: it needs 50 reputation on the site", true},
		{"read-only token", func() { api.SetReputation(101); api.SetReadOnlyToken("ro") }, "ro", "kothd: a read-only token here", "lacks the write_access scope", true},
		{"expired token", func() {}, "stale", "kothd: an expired token here", "obtain a new token", true},
		{"duplicate", func() {}, "good", "kothd: a comment long enough", "duplicate_request", true},
	} {
		tc.setup()
		_, err := c.AddComment(ctx, 115304, tc.body, tc.token)
		advice, stop := scraper.CommentAdvice(err)
		if err == nil || !strings.Contains(advice, tc.advice) || stop != tc.stop {
			t.Errorf("%s: err %v, advice %q, stop %v", tc.name, err, advice, stop)
		}
	}
}

// The fake API checks a comment's length as the site does (400 bad_parameter), for the
// requests the client never sends.
func TestFakeAPICommentBounds(t *testing.T) {
	api := fakeapi.New()
	defer api.Close()
	fill(t, api, 115303, 1)
	api.SetAccessToken("good")
	api.SetEncoding(fakeapi.Identity, false)
	for body, want := range map[string]string{"short": "at least 15 characters", strings.Repeat("y", 601): "longer than 600 characters"} {
		resp, err := http.PostForm(api.BaseURL()+"/posts/115304/comments/add", url.Values{"key": {"k"}, "access_token": {"good"}, "site": {"codegolf"}, "body": {body}})
		if err != nil {
			t.Fatal(err)
		}
		var env struct {
			ID   int    `json:"error_id"`
			Name string `json:"error_name"`
			Msg  string `json:"error_message"`
		}
		json.NewDecoder(resp.Body).Decode(&env)
		resp.Body.Close()
		if env.ID != 400 || env.Name != "bad_parameter" || !strings.Contains(env.Msg, want) {
			t.Errorf("%d characters: %+v", len(body), env)
		}
	}
}
