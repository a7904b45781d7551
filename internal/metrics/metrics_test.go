package metrics

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func scrape(t *testing.T, h http.Handler, path string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	b, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, string(b)
}

// What the cycle reports shows in /metrics under the documented names, and /healthz is 200
// until a cycle fails (a failed publication alone is still healthy), 200 again after one
// succeeds.
func TestMetricsAndHealth(t *testing.T) {
	m := New("v1.2.3", "abc", "go1.26")
	m.SetQuota(func() (int, bool) { return 9876, true })
	m.RunEnded("forty", "done", 4000, 90*time.Second)
	m.Decisions("forty", map[string]int{"ok": 100, "timeout": 3})
	m.Published("forty", "/srv/lb", true)
	m.Published("forty", "github:o/r@main/lb", false)
	m.Shards("forty", 7, 2, 41)
	h := m.Handler()
	_, body := scrape(t, h, "/metrics")
	for _, want := range []string{
		`kothd_build_info{goversion="go1.26",revision="abc",version="v1.2.3"} 1`,
		`kothd_runs_total{challenge="forty",outcome="done"} 1`,
		`kothd_games_played_total{challenge="forty"} 4000`,
		`kothd_decisions_total{challenge="forty"} 103`,
		`kothd_faults_total{challenge="forty",kind="timeout"} 3`,
		`kothd_run_duration_seconds_sum{challenge="forty"} 90`,
		`kothd_last_publication_success_timestamp_seconds{challenge="forty",target="/srv/lb"}`,
		`kothd_publication_failures_total{challenge="forty",target="github:o/r@main/lb"} 1`,
		`kothd_api_quota_remaining 9876`,
		`kothd_shards{challenge="forty",state="in_flight"} 2`,
		`kothd_shards{challenge="forty",state="queued"} 7`,
		`kothd_shards{challenge="forty",state="done"} 41`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if code, _ := scrape(t, h, "/healthz"); code != 200 {
		t.Errorf("/healthz before any cycle: %d", code)
	}
	m.CycleEnded(errors.New("github down"), true)
	if code, _ := scrape(t, h, "/healthz"); code != 200 {
		t.Errorf("/healthz after a cycle whose publication failed: %d", code)
	}
	m.CycleEnded(errors.New("preflight failed: python missing"), false)
	if code, body := scrape(t, h, "/healthz"); code != 503 || !strings.Contains(body, "python missing") {
		t.Errorf("/healthz after a failed cycle: %d %q", code, body)
	}
	m.CycleEnded(nil, false)
	if code, _ := scrape(t, h, "/healthz"); code != 200 {
		t.Errorf("/healthz after a good cycle: %d", code)
	}
}
