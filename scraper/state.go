package scraper

import (
	"cmp"
	"context"
	"strings"
	"time"
)

// What the API tells the client that must outlive the process (store/apistate.go keeps it):
// a throttle ban of an hour or a day, a method's backoff, the filter made once. Without it a
// new `kothd once` seconds after a ban makes the very calls the ban forbids.

// State keeps the API's pauses and lasting values across processes (store.Store).
type State interface {
	APIPauses(ctx context.Context, prefix string, now time.Time) (map[string]time.Time, error)
	SetAPIPause(ctx context.Context, key string, until time.Time) error
	APIValue(ctx context.Context, key string) (string, error)
	SetAPIValue(ctx context.Context, key, value string) error
}

// stateBase names the API in the state's keys: bans and filters belong to an API, not to a
// site.
func (c *Client) stateBase() string {
	return strings.TrimRight(cmp.Or(c.BaseURL, DefaultBaseURL), "/")
}

// loadState reads the pauses recorded by earlier processes, once. Called with c.mu held.
func (c *Client) loadState() {
	if c.State == nil || c.stateLoaded {
		return
	}
	c.stateLoaded = true
	now := c.clock().Now()
	ctx := context.Background()
	ps, err := c.State.APIPauses(ctx, "pause:"+c.stateBase()+"|", now)
	if err != nil {
		c.log().Warn("stack exchange API: earlier backoffs not read", "err", err)
	}
	for method, until := range ps {
		if c.next == nil {
			c.next = map[string]time.Time{}
		}
		if until.After(c.next[method]) {
			c.next[method] = until
		}
	}
	bans, err := c.State.APIPauses(ctx, "ban:", now)
	if err != nil {
		c.log().Warn("stack exchange API: an earlier ban not read", "err", err)
	}
	if until, ok := bans[c.stateBase()]; ok && until.After(c.blockedUntil) {
		c.blockedUntil = until
		c.log().Info("stack exchange API: a throttle ban recorded by an earlier process is still on", "until", until.UTC().Format(time.RFC3339))
	}
}

// savePause records a pause (key "pause:<base>|<method>" or "ban:<base>"). Called with c.mu held.
func (c *Client) savePause(key string, until time.Time) {
	if c.State == nil {
		return
	}
	if err := c.State.SetAPIPause(context.Background(), key, until); err != nil {
		c.log().Warn("stack exchange API: pause not recorded; a new process may not honour it", "key", key, "err", err)
	}
}
