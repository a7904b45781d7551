// Package httpclient makes the HTTP clients kothd talks to the outside with (the Stack
// Exchange API, GitHub). Go's default client waits for ever: a server that accepts the
// connection and never answers would hold a cycle, and with it the daemon, until killed.
// Every stage here has a bound. Retry is the loop both clients retry a failed call with.
package httpclient

import (
	"net"
	"net/http"
	"time"
)

// Timeouts bound the stages of one request.
type Timeouts struct {
	Dial           time.Duration // TCP connect
	TLS            time.Duration // TLS handshake
	ResponseHeader time.Duration // from the request written to the response headers
	Request        time.Duration // the whole request, body read included
}

// Default is what kothd uses unless told otherwise: generous for a slow API, short
// enough that a dead one shows within minutes.
var Default = Timeouts{Dial: 30 * time.Second, TLS: 15 * time.Second, ResponseHeader: 60 * time.Second, Request: 2 * time.Minute}

// New returns a client whose every stage is bounded; a zero field takes Default's value.
func New(t Timeouts) *http.Client {
	t = t.withDefaults()
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: t.Dial, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   t.TLS,
		ResponseHeaderTimeout: t.ResponseHeader,
		ExpectContinueTimeout: time.Second,
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConns:          10,
		ForceAttemptHTTP2:     true,
	}
	return &http.Client{Transport: tr, Timeout: t.Request}
}

func (t Timeouts) withDefaults() Timeouts {
	pick := func(v, def time.Duration) time.Duration {
		if v <= 0 {
			return def
		}
		return v
	}
	return Timeouts{
		Dial:           pick(t.Dial, Default.Dial),
		TLS:            pick(t.TLS, Default.TLS),
		ResponseHeader: pick(t.ResponseHeader, Default.ResponseHeader),
		Request:        pick(t.Request, Default.Request),
	}
}
