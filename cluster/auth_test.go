package cluster

import (
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// With KOTHD_NATS_TOKEN set, the embedded server (a real one, on a free port) takes no
// client without it: a stranger can neither connect nor subscribe to the runs' subjects,
// while the daemon's and workers' Connect presents it and reads them.
func TestEmbeddedServerRequiresTheToken(t *testing.T) {
	t.Setenv(EnvToken, "s3cret-token")
	srv, url, err := Embed("127.0.0.1:0", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()

	for name, opts := range map[string][]nats.Option{
		"no token":    nil,
		"wrong token": {nats.Token("guess")},
	} {
		nc, err := nats.Connect(url, append(opts, nats.Timeout(5*time.Second))...)
		if err == nil {
			_, serr := nc.SubscribeSync(resultSubj + ".>")
			nc.Close()
			t.Fatalf("a client with %s connected (subscribe: %v)", name, serr)
		}
		if !errors.Is(err, nats.ErrAuthorization) {
			t.Errorf("a client with %s: %v, want an authorization error", name, err)
		}
	}

	nc, err := Connect(url, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	sub, err := nc.SubscribeSync(resultSubj + ".>")
	if err != nil {
		t.Fatal(err)
	}
	if err := nc.Publish(resultSubj+".t.0", []byte("ok")); err != nil {
		t.Fatal(err)
	}
	if m, err := sub.NextMsg(5 * time.Second); err != nil || string(m.Data) != "ok" {
		t.Errorf("the token's holder got %v, %v", m, err)
	}
}
