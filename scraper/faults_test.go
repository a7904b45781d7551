package scraper_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/internal/httpclient/httpclienttest"
	"github.com/kothd/kothd/scraper"
	"github.com/kothd/kothd/scraper/fakeapi"
)

// The API's failure modes, scripted in the fake server: what is retried, what is
// surfaced, what stops the client before it spends quota.

func TestThrottleViolation(t *testing.T) {
	api := fakeapi.New()
	defer api.Close()
	fill(t, api, 115303, 2)
	c, clk := newClient(api)
	api.Fail(fakeapi.Fault{ErrorID: 502, ErrorName: "throttle_violation", ErrorMessage: "too many requests from this IP, more requests available in 3600 seconds"})
	_, err := c.Answers(context.Background(), 115303)
	var ae *scraper.APIError
	if !errors.As(err, &ae) || ae.ID != 502 || ae.Name != "throttle_violation" || !errors.Is(err, scraper.ErrThrottled) {
		t.Fatalf("err = %v, want a throttle_violation APIError", err)
	}
	if !strings.Contains(err.Error(), "more requests available in 3600 seconds") {
		t.Errorf("error does not carry the API's message: %v", err)
	}
	if api.Requests() != 1 {
		t.Fatalf("%d requests, want 1 (a throttle violation is not retried)", api.Requests())
	}
	// Banned: no request until the time the API named.
	clk.Advance(3599 * time.Second)
	if _, err := c.Probe(context.Background(), []int64{115303}); !errors.Is(err, scraper.ErrThrottled) {
		t.Fatalf("err = %v during the ban, want ErrThrottled", err)
	}
	if api.Requests() != 1 {
		t.Fatalf("a request was made during the ban")
	}
	clk.Advance(time.Second)
	if _, err := c.Answers(context.Background(), 115303); err != nil {
		t.Fatalf("after the ban: %v", err)
	}
}

func TestTransientFailuresAreRetried(t *testing.T) {
	api := fakeapi.New()
	defer api.Close()
	fill(t, api, 151341, 2)
	c, clk := newClient(api)
	api.Fail(
		fakeapi.Fault{Status: 500, Body: "<html><body>Internal Server Error</body></html>"},
		fakeapi.Fault{ErrorID: 503, ErrorName: "temporarily_unavailable", ErrorMessage: "down for maintenance", Status: 503},
	)
	got, err := c.Answers(context.Background(), 151341)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || api.Requests() != 3 {
		t.Fatalf("%d answers after %d requests, want 2 after 3", len(got), api.Requests())
	}
	if s := clk.Sleeps(); !reflect.DeepEqual(s, []time.Duration{2 * time.Second, 4 * time.Second}) {
		t.Errorf("retry sleeps %v, want [2s 4s]", s)
	}
}

func TestRetriesAreCapped(t *testing.T) {
	api := fakeapi.New()
	defer api.Close()
	fill(t, api, 151341, 2)
	c, clk := newClient(api)
	c.RetryMax = 5 * time.Second
	for i := 0; i < 10; i++ {
		api.Fail(fakeapi.Fault{ErrorID: 500, ErrorName: "internal_error", ErrorMessage: "oops", Status: 500})
	}
	_, err := c.Answers(context.Background(), 151341)
	var ae *scraper.APIError
	if !errors.As(err, &ae) || ae.Name != "internal_error" || !strings.Contains(err.Error(), "after 5 attempts") {
		t.Fatalf("err = %v", err)
	}
	if api.Requests() != 5 {
		t.Errorf("%d requests, want 5 (1 + 4 retries)", api.Requests())
	}
	want := []time.Duration{2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}
	if s := clk.Sleeps(); !reflect.DeepEqual(s, want) {
		t.Errorf("sleeps %v, want %v", s, want)
	}
}

func TestTimeoutIsRetried(t *testing.T) {
	api := fakeapi.New()
	defer api.Close()
	fill(t, api, 151341, 1)
	c, _ := newClient(api)
	c.Timeout = 50 * time.Millisecond
	api.Fail(fakeapi.Fault{Delay: 10 * time.Second})
	got, err := c.Answers(context.Background(), 151341)
	if err != nil || len(got) != 1 {
		t.Fatalf("got %d answers, err %v", len(got), err)
	}
	if api.Requests() != 2 {
		t.Errorf("%d requests, want 2", api.Requests())
	}
}

func TestBadParameterIsNotRetried(t *testing.T) {
	api := fakeapi.New()
	defer api.Close()
	c, _ := newClient(api)
	c.Site = "nosuchsite"
	_, err := c.Answers(context.Background(), 1)
	var ae *scraper.APIError
	if !errors.As(err, &ae) || ae.ID != 400 || ae.Name != "bad_parameter" {
		t.Fatalf("err = %v, want bad_parameter", err)
	}
	if !strings.Contains(err.Error(), "error 400 bad_parameter: site is required") {
		t.Errorf("unclear error: %v", err)
	}
	if api.Requests() != 1 {
		t.Errorf("%d requests, want 1", api.Requests())
	}
}

func TestMalformedJSON(t *testing.T) {
	api := fakeapi.New()
	defer api.Close()
	fill(t, api, 177765, 150)
	c, _ := newClient(api)
	api.Fail(fakeapi.Fault{Method: "answers"}, fakeapi.Fault{Method: "answers", Status: 200, Body: `{"items":[{"answer_id":1`})
	got, err := c.Answers(context.Background(), 177765)
	if err == nil || !strings.Contains(err.Error(), "malformed API response") || !strings.Contains(err.Error(), "page 2") {
		t.Fatalf("err = %v, want a malformed-response error on page 2", err)
	}
	if got != nil {
		t.Errorf("partial answers returned: %d", len(got))
	}
	if api.Requests() != 2 {
		t.Errorf("%d requests, want 2 (malformed JSON is not retried)", api.Requests())
	}
}

func TestQuotaThresholdStopsCleanly(t *testing.T) {
	api := fakeapi.New()
	defer api.Close()
	fill(t, api, 177765, 250)
	api.SetQuota(300, 11)
	c, clk := newClient(api)
	ctx := context.Background()
	got, err := c.Answers(ctx, 177765) // page 1 leaves 10, page 2 leaves 9 < 10: page 3 is not asked for
	if !errors.Is(err, scraper.ErrQuotaLow) || got != nil {
		t.Fatalf("got %d answers, err %v; want nothing and ErrQuotaLow", len(got), err)
	}
	if api.Requests() != 2 {
		t.Fatalf("%d requests, want 2", api.Requests())
	}
	if q := c.Quota(); q.Remaining != 9 || q.Max != 300 {
		t.Errorf("quota %+v", q)
	}
	if _, err := c.Probe(ctx, []int64{177765}); !errors.Is(err, scraper.ErrQuotaLow) || api.Requests() != 2 {
		t.Fatalf("probe with low quota: err %v, %d requests", err, api.Requests())
	}
	// After UTC midnight the quota has reset: requests go out again.
	api.SetQuota(300, 300)
	clk.Advance(12 * time.Hour)
	if got, err := c.Answers(ctx, 177765); err != nil || len(got) != 250 {
		t.Fatalf("after reset: %d answers, err %v", len(got), err)
	}
}

func TestQuotaExhaustedOnServer(t *testing.T) {
	api := fakeapi.New()
	defer api.Close()
	fill(t, api, 177765, 2)
	api.SetQuota(300, 0)
	c, _ := newClient(api)
	c.MinQuota = -1
	_, err := c.Answers(context.Background(), 177765)
	if !errors.Is(err, scraper.ErrThrottled) {
		t.Fatalf("err = %v, want ErrThrottled", err)
	}
}

func TestNetworkErrorIsRetriedAndKeyKeptOutOfErrors(t *testing.T) {
	api := fakeapi.New()
	c, clk := newClient(api)
	api.Close() // nothing listens any more
	c.Key = "s3cr3tkey"
	c.Retries = 1
	_, err := c.Answers(context.Background(), 1)
	if err == nil || !strings.Contains(err.Error(), "after 2 attempts") {
		t.Fatalf("err = %v, want a retried network error", err)
	}
	if strings.Contains(err.Error(), "s3cr3tkey") {
		t.Errorf("the key leaked into the error: %v", err)
	}
	if len(clk.Sleeps()) != 1 {
		t.Errorf("sleeps %v, want one retry pause", clk.Sleeps())
	}
}

// An API that accepts connections and never answers fails the fetch within the bound of
// attempts × Timeout, with a message saying so, instead of holding the cycle for ever.
func TestUnresponsiveAPIFailsWithinTheBound(t *testing.T) {
	c := scraper.New(httpclienttest.Unresponsive(t)+"/2.3", "codegolf", "")
	clk := newClock()
	c.Clock = clk
	c.Timeout = 200 * time.Millisecond
	c.Retries = 2
	start := time.Now()
	_, err := c.Probe(context.Background(), []int64{177765})
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "after 3 attempts") || !strings.Contains(err.Error(), "no response within 200ms") {
		t.Fatalf("err = %v", err)
	}
	if took > 3*time.Second {
		t.Errorf("took %s for 3 attempts of 200ms", took)
	}
	if len(clk.Sleeps()) != 2 {
		t.Errorf("sleeps %v, want two retry pauses", clk.Sleeps())
	}
}
