package httpclient

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/internal/httpclient/httpclienttest"
)

func TestEveryStageIsBounded(t *testing.T) {
	c := New(Timeouts{})
	tr := c.Transport.(*http.Transport)
	if c.Timeout != Default.Request || tr.ResponseHeaderTimeout != Default.ResponseHeader || tr.TLSHandshakeTimeout != Default.TLS || tr.DialContext == nil {
		t.Errorf("zero timeouts did not take the defaults: %+v %+v", c, tr)
	}
	for _, d := range []time.Duration{c.Timeout, tr.ResponseHeaderTimeout, tr.TLSHandshakeTimeout} {
		if d <= 0 {
			t.Errorf("an unbounded stage: %v", d)
		}
	}
}

func TestUnresponsiveServerTimesOut(t *testing.T) {
	c := New(Timeouts{ResponseHeader: 200 * time.Millisecond})
	start := time.Now()
	_, err := c.Get(httpclienttest.Unresponsive(t))
	if err == nil || !strings.Contains(err.Error(), "timeout awaiting response headers") {
		t.Fatalf("err = %v", err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("took %s for a 200ms header timeout", took)
	}
}
