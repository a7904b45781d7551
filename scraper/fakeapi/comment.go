package fakeapi

import (
	"html"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// Comments on posts: POST /posts/{id}/comments/add with the real API's checks and errors,
// and the sites' comment mini-markdown rendered as the site would (*italic*, **bold**,
// `code`, [text](url), bare URLs linked, @user pings), so a test can see what a comment
// does once posted.

// Comment is one accepted comment.
type Comment struct {
	ID     int64
	PostID int64
	Body   string   // the markdown as sent
	HTML   string   // as the site renders it
	Pings  []string // users the comment notifies by @name
	Form   url.Values
	At     time.Time
}

// SetReputation sets the reputation of the account behind the access token: below 50 it
// lacks the "comment everywhere" privilege and may not comment on others' posts.
func (s *Server) SetReputation(rep int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reputation = rep
}

// SetReadOnlyToken makes token a valid access token without the write_access scope.
func (s *Server) SetReadOnlyToken(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.readOnlyToken = token
}

// Comments returns the comments accepted so far, oldest first.
func (s *Server) Comments() []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Comment(nil), s.comments...)
}

// postExists says whether id is a question or an answer here.
func (s *Server) postExists(id int64) bool {
	if s.questions[id] != nil {
		return true
	}
	for _, q := range s.questions {
		if _, ok := q.answers[id]; ok {
			return true
		}
	}
	return false
}

func (s *Server) addComment(id int64, f url.Values) (map[string]any, *errorEnvelope) {
	tok := f.Get("access_token")
	switch {
	case tok == "":
		return nil, &errorEnvelope{401, "access_token_required", "This method requires an access_token"}
	case f.Get("key") == "":
		return nil, &errorEnvelope{405, "key_required", "`key` is required when `access_token` is passed"}
	case tok == s.readOnlyToken && tok != "":
		return nil, &errorEnvelope{403, "access_denied", "This method requires an access_token with the write_access scope"}
	case s.accessToken == "" || tok != s.accessToken:
		return nil, &errorEnvelope{402, "invalid_access_token", "`access_token` is invalid"}
	case !s.postExists(id):
		return nil, &errorEnvelope{400, "bad_parameter", "No post found for id"}
	case s.reputation < 50:
		return nil, &errorEnvelope{403, "access_denied", "You must have at least 50 reputation to comment on this post (the comment everywhere privilege)"}
	}
	body := f.Get("body")
	switch n := utf8.RuneCountInString(body); {
	case n < 15:
		return nil, &errorEnvelope{400, "bad_parameter", "body must be at least 15 characters"}
	case n > 600:
		return nil, &errorEnvelope{400, "bad_parameter", "body cannot be longer than 600 characters"}
	}
	for _, c := range s.comments {
		if c.PostID == id && c.Body == body {
			return nil, &errorEnvelope{409, "duplicate_request", "A duplicate request was detected"}
		}
	}
	s.nextComment++
	rendered, pings := RenderComment(body)
	c := Comment{ID: 9000000 + s.nextComment, PostID: id, Body: body, HTML: rendered, Pings: pings, Form: f, At: time.Now()}
	s.comments = append(s.comments, c)
	item := map[string]any{"comment_id": c.ID, "post_id": id, "body": rendered, "creation_date": c.At.Unix(), "edited": false, "score": 0}
	return map[string]any{"items": []map[string]any{item}, "has_more": false}, nil
}

var (
	commentLink = regexp.MustCompile(`^\[([^\]\n]+)\]\(((?:https?|ftp)://[^)\s]+)\)`)
	commentURL  = regexp.MustCompile(`^(?:https?|ftp)://[^\s<>"]+`)
	commentPing = regexp.MustCompile(`^@([\p{L}\p{N}_.-]+)`)
)

// RenderComment renders a comment's mini-markdown as the sites do, closely enough for
// tests: backslash escapes, `code`, **bold** and __bold__, *italic* and _italic_,
// [text](url), bare http(s)/ftp URLs, and @name pings (returned).
func RenderComment(md string) (string, []string) {
	var pings []string
	var render func(s string, inEmph bool) string
	render = func(s string, inEmph bool) string {
		var w strings.Builder
		for i := 0; i < len(s); {
			rest := s[i:]
			prevSpace := i == 0 || strings.ContainsRune(" \t(", rune(s[i-1]))
			switch {
			case rest[0] == '\\' && len(rest) > 1 && strings.ContainsRune("\\`*_[](){}#+-.!@", rune(rest[1])):
				w.WriteString(html.EscapeString(rest[1:2]))
				i += 2
				continue
			case rest[0] == '`':
				if j := strings.IndexByte(rest[1:], '`'); j > 0 {
					w.WriteString("<code>" + html.EscapeString(rest[1:1+j]) + "</code>")
					i += j + 2
					continue
				}
			case strings.HasPrefix(rest, "**") || strings.HasPrefix(rest, "__"):
				if j := strings.Index(rest[2:], rest[:2]); j > 0 {
					w.WriteString("<b>" + render(rest[2:2+j], true) + "</b>")
					i += j + 4
					continue
				}
			case (rest[0] == '*' || rest[0] == '_') && len(rest) > 1 && rest[1] != ' ' && (rest[0] == '*' || prevSpace):
				if j := strings.IndexByte(rest[1:], rest[0]); j > 0 && rest[j] != ' ' {
					w.WriteString("<i>" + render(rest[1:1+j], true) + "</i>")
					i += j + 2
					continue
				}
			case rest[0] == '[':
				if m := commentLink.FindStringSubmatch(rest); m != nil {
					w.WriteString(`<a href="` + html.EscapeString(m[2]) + `">` + render(m[1], true) + "</a>")
					i += len(m[0])
					continue
				}
			case prevSpace && (rest[0] == 'h' || rest[0] == 'f'):
				if m := commentURL.FindString(rest); m != "" {
					w.WriteString(`<a href="` + html.EscapeString(m) + `">` + html.EscapeString(m) + "</a>")
					i += len(m)
					continue
				}
			case rest[0] == '@' && prevSpace:
				if m := commentPing.FindStringSubmatch(rest); m != nil {
					pings = append(pings, m[1])
				}
			}
			r, n := utf8.DecodeRuneInString(rest)
			w.WriteString(html.EscapeString(string(r)))
			i += n
		}
		return w.String()
	}
	return render(md, false), pings
}
