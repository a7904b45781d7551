package fakeapi

import (
	"bytes"
	"cmp"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The wire side: routing, paging, compression, quota and scripted faults.

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests = append(s.requests, r.URL.RequestURI())
	env, status, delay := s.respond(r)
	enc, omit := s.encoding, s.omitHeader
	s.mu.Unlock()
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
	body, ok := env.([]byte)
	if !ok {
		body, _ = json.Marshal(env)
	}
	var buf bytes.Buffer
	switch enc {
	case Gzip:
		zw := gzip.NewWriter(&buf)
		zw.Write(body)
		zw.Close()
	case Zlib:
		zw := zlib.NewWriter(&buf)
		zw.Write(body)
		zw.Close()
	case RawDeflate:
		zw, _ := flate.NewWriter(&buf, flate.DefaultCompression)
		zw.Write(body)
		zw.Close()
	default:
		buf.Write(body)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	if !omit && enc != Identity {
		w.Header().Set("Content-Encoding", map[string]string{Gzip: "gzip", Zlib: "deflate", RawDeflate: "deflate"}[enc])
	}
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// respond computes the response (an envelope map, or raw bytes) under the lock.
func (s *Server) respond(r *http.Request) (any, int, time.Duration) {
	path := strings.TrimPrefix(r.URL.Path, "/2.3")
	method, ids, ok := route(path)
	if !ok {
		return apiError(404, "no_method", "no method found with this name"), 400, 0
	}
	var f *Fault
	for i := range s.faults {
		if s.faults[i].Method == "" || s.faults[i].Method == method {
			ff := s.faults[i]
			f = &ff
			s.faults = append(s.faults[:i], s.faults[i+1:]...)
			break
		}
	}
	if s.quotaRemaining <= 0 {
		return apiError(502, "throttle_violation", "too many requests from this IP, more requests available in 86400 seconds"), 400, 0
	}
	s.quotaRemaining--
	if f != nil && f.ErrorID != 0 {
		return apiError(f.ErrorID, f.ErrorName, f.ErrorMessage), cmp.Or(f.Status, 400), f.Delay
	}
	if f != nil && (f.Status != 0 || f.Body != "") {
		return []byte(f.Body), cmp.Or(f.Status, 200), f.Delay
	}
	q := r.URL.Query()
	if method == "edit" || method == "comment" {
		if r.Method != http.MethodPost {
			return apiError(404, "no_method", "this method must be called with POST"), 400, 0
		}
		if err := r.ParseForm(); err != nil {
			return apiError(400, "bad_parameter", "unreadable form"), 400, 0
		}
		q = r.PostForm
	}
	if q.Get("site") != s.site && method != "filter" {
		return apiError(400, "bad_parameter", "site is required"), 400, 0
	}
	var env map[string]any
	var err error
	switch method {
	case "answers":
		env, err = s.answers(ids, q)
	case "filter":
		env, err = s.createFilter(q)
	case "edit":
		var e *errorEnvelope
		if env, e = s.edit(ids[0], q); e != nil {
			return apiError(e.id, e.name, e.msg), 400, 0
		}
	case "comment":
		var e *errorEnvelope
		if env, e = s.addComment(ids[0], q); e != nil {
			return apiError(e.id, e.name, e.msg), 400, 0
		}
	case "revisions":
		env, err = s.postRevisions(ids, q)
	default:
		env, err = s.questionsInfo(ids, q.Get("filter"))
	}
	if err != nil {
		return apiError(400, "bad_parameter", err.Error()), 400, 0
	}
	env["quota_max"] = s.quotaMax
	env["quota_remaining"] = s.quotaRemaining
	var delay time.Duration
	if f != nil {
		if f.Backoff > 0 {
			env["backoff"] = f.Backoff
		}
		delay = f.Delay
	}
	return env, 200, delay
}

func route(path string) (method string, ids []int64, ok bool) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	if len(parts) == 2 && parts[0] == "filters" && parts[1] == "create" {
		return "filter", nil, true
	}
	if len(parts) == 4 && parts[0] == "posts" && parts[2] == "comments" && parts[3] == "add" {
		id, err := strconv.ParseInt(parts[1], 10, 64)
		return "comment", []int64{id}, err == nil
	}
	if len(parts) < 2 || len(parts) > 3 || parts[0] != "questions" && !(parts[0] == "posts" && len(parts) == 3 && parts[2] == "revisions") {
		return "", nil, false
	}
	for _, p := range strings.Split(parts[1], ";") {
		id, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return "", nil, false
		}
		ids = append(ids, id)
	}
	switch {
	case len(parts) == 2:
		return "questions", ids, true
	case parts[0] == "posts":
		return "revisions", ids, true
	case parts[2] == "answers":
		return "answers", ids, true
	case parts[2] == "edit" && len(ids) == 1:
		return "edit", ids, true
	}
	return "", nil, false
}

func (s *Server) answers(ids []int64, q map[string][]string) (map[string]any, error) {
	get := func(k string) string {
		if v := q[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	size, page := 30, 1
	if v := get("pagesize"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 100 {
			return nil, fmt.Errorf("pagesize")
		}
		size = n
	}
	if v := get("page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("page")
		}
		page = n
	}
	if s := get("sort"); s != "" && s != "creation" {
		return nil, fmt.Errorf("sort")
	}
	type item struct {
		id, created int64
		raw         json.RawMessage
	}
	var all []item
	for _, qid := range ids {
		qq := s.questions[qid]
		if qq == nil {
			continue
		}
		for id, raw := range qq.answers {
			all = append(all, item{id, qq.created[id], raw})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].created != all[j].created {
			return all[i].created < all[j].created
		}
		return all[i].id < all[j].id
	})
	if get("order") == "desc" {
		for i, j := 0, len(all)-1; i < j; i, j = i+1, j-1 {
			all[i], all[j] = all[j], all[i]
		}
	}
	items := []json.RawMessage{}
	start := (page - 1) * size
	for i := start; i < len(all) && i < start+size; i++ {
		items = append(items, all[i].raw)
	}
	more := start+size < len(all)
	if s.endless != "" && !more {
		// A misbehaving API: has_more never turns false; pages past the end are empty, or
		// repeat the last real page.
		more = true
		if s.endless == EndlessRepeat && len(all) > 0 {
			last := (len(all) - 1) / max(size, 1) * size
			for i := last; i < len(all); i++ {
				items = append(items, all[i].raw)
			}
		}
	}
	return map[string]any{"items": items, "has_more": more}, nil
}

// postRevisions is /posts/{ids}/revisions: the answers' edit histories, newest first, as
// the API's revision objects (an answer's every revision is a single_user edit here).
func (s *Server) postRevisions(ids []int64, q map[string][]string) (map[string]any, error) {
	size, page := 30, 1
	if v := q["pagesize"]; len(v) > 0 {
		n, err := strconv.Atoi(v[0])
		if err != nil || n < 0 || n > 100 {
			return nil, fmt.Errorf("pagesize")
		}
		size = n
	}
	if v := q["page"]; len(v) > 0 {
		n, err := strconv.Atoi(v[0])
		if err != nil || n < 1 {
			return nil, fmt.Errorf("page")
		}
		page = n
	}
	var all []map[string]any
	for _, id := range ids {
		for _, qq := range s.questions {
			for _, r := range qq.revisions[id] {
				all = append(all, map[string]any{
					"revision_guid": fmt.Sprintf("%08X-0000-0000-0000-%012X", id, r.number), "revision_number": r.number,
					"revision_type": "single_user", "post_type": "answer", "post_id": id, "creation_date": r.created,
					"is_rollback": false, "set_community_wiki": false,
				})
			}
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i]["creation_date"].(int64) > all[j]["creation_date"].(int64) })
	items := []map[string]any{}
	start := (page - 1) * size
	for i := start; i < len(all) && i < start+size; i++ {
		items = append(items, all[i])
	}
	return map[string]any{"items": items, "has_more": start+size < len(all)}, nil
}

func (s *Server) questionsInfo(ids []int64, filter string) (map[string]any, error) {
	items := []map[string]any{}
	for _, id := range ids {
		q := s.questions[id]
		if q == nil {
			continue
		}
		last := q.lastActivity
		for _, a := range q.activity {
			last = max(last, a)
		}
		item := map[string]any{
			"question_id": id, "title": q.title, "answer_count": len(q.answers),
			"last_activity_date": last, "is_answered": len(q.answers) > 0,
			"link": fmt.Sprintf("https://codegolf.stackexchange.com/questions/%d", id),
		}
		if q.lastEdit != 0 {
			item["last_edit_date"] = q.lastEdit // in the default filter, as on the real API
		}
		if filter == BodyFilter {
			s.withMarkdown(item, q)
		}
		items = append(items, item)
	}
	return map[string]any{"items": items, "has_more": false}, nil
}

func apiError(id int, name, msg string) map[string]any {
	return map[string]any{"error_id": id, "error_name": name, "error_message": msg}
}
