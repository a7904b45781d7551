package config

import (
	"strings"
	"testing"
)

// An embedded NATS server reachable from other machines takes a token or is refused at
// load, with the file and line: without one, a stranger on the network read the runs'
// messages. Loopback needs none.
func TestClusterListenNeedsAToken(t *testing.T) {
	const ch = "challenges:\n  - {name: forty, question_id: 177765}\n"
	t.Setenv(EnvNATSToken, "")
	for _, listen := range []string{"0.0.0.0:4222", ":4222", "192.0.2.7:4222", "[::]:4222", "nats.example.org:4222"} {
		p := write(t, ch+"cluster:\n  listen: \""+listen+"\"\n")
		_, err := Load(p)
		if err == nil || !strings.Contains(err.Error(), p+":3: cluster.listen") || !strings.Contains(err.Error(), "KOTHD_NATS_TOKEN is not set") {
			t.Errorf("listen %s without a token: err = %v", listen, err)
		}
	}
	for _, listen := range []string{"127.0.0.1:4222", "localhost:4222", "[::1]:4222", "127.0.0.2:0"} {
		if _, err := Load(write(t, ch+"cluster:\n  listen: \""+listen+"\"\n")); err != nil {
			t.Errorf("listen %s (loopback) without a token: %v", listen, err)
		}
	}
	t.Setenv(EnvNATSToken, "s3cret")
	if _, err := Load(write(t, ch+"cluster:\n  listen: 0.0.0.0:4222\n")); err != nil {
		t.Errorf("listen 0.0.0.0 with a token: %v", err)
	}
}
