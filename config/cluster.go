package config

import (
	"net"
	"net/url"
	"os"
	"time"
)

// EnvNATSToken names the environment variable holding the cluster's token: the embedded
// server requires it of every client, and the daemon and workers present it.
const EnvNATSToken = "KOTHD_NATS_TOKEN"

// Cluster spreads the games of runs over workers through NATS JetStream (docs/cluster.md).
// The daemon either embeds the server (Listen) or joins one (URL). Credentials never sit
// in this file: KOTHD_NATS_TOKEN or KOTHD_NATS_CREDS (a NATS creds file) in the
// environment.
type Cluster struct {
	Listen string `yaml:"listen"` // host:port the embedded JetStream server listens on
	URL    string `yaml:"url"`    // nats://, tls:// URL of an existing JetStream server
	// LocalWorker plays shards in the daemon too (default true).
	LocalWorker *bool `yaml:"local_worker"`
	// ShardGames is the games of one shard; 0: each engine's default. Part of what makes a
	// run reproducible: a bot's process lives for one shard.
	ShardGames int `yaml:"shard_games"`
	// AckWait is how long a shard's worker may stay silent before the shard is given to
	// another (workers report progress more often; default 30s).
	AckWait Duration `yaml:"ack_wait"`
	// MaxDeliver is how many times a shard is handed out before its run fails (default 3).
	MaxDeliver int `yaml:"max_deliver"`
}

// Local says whether the daemon plays shards itself.
func (c *Cluster) Local() bool { return c.LocalWorker == nil || *c.LocalWorker }

// Wait is AckWait with its default.
func (c *Cluster) Wait() time.Duration { return c.AckWait.D(30 * time.Second) }

// Deliveries is MaxDeliver with its default.
func (c *Cluster) Deliveries() int {
	if c.MaxDeliver == 0 {
		return 3
	}
	return c.MaxDeliver
}

// checkCluster reports the cluster block's mistakes at its line.
func (c *Config) checkCluster(bad func(line int, format string, args ...any)) {
	cl := c.Cluster
	if cl == nil {
		return
	}
	line := c.lines["cluster"]
	switch {
	case cl.Listen == "" && cl.URL == "":
		bad(line, "cluster: set listen (embed a NATS server, e.g. 127.0.0.1:4222) or url (join one, nats://host:4222)")
	case cl.Listen != "" && cl.URL != "":
		bad(line, "cluster: listen (embed a server) and url (join one) exclude each other")
	}
	if cl.Listen != "" {
		if host, _, err := net.SplitHostPort(cl.Listen); err != nil {
			bad(line, "cluster.listen %q: want host:port (%v)", cl.Listen, err)
		} else if !loopback(host) && os.Getenv(EnvNATSToken) == "" {
			// An embedded server without a token takes any client: whoever reaches the
			// port reads every job and result and can offer results of its own.
			bad(line, "cluster.listen %q is reachable from other machines, and %s is not set: the embedded NATS server would let anyone who reaches it read the runs' jobs and results and offer results of their own. "+
				"Set %s in the environment of the daemon (and of every command that reads this file) and of the workers, or listen on 127.0.0.1 (docs/cluster.md)", cl.Listen, EnvNATSToken, EnvNATSToken)
		}
	}
	if cl.URL != "" {
		u, err := url.Parse(cl.URL)
		if err != nil || (u.Scheme != "nats" && u.Scheme != "tls") || u.Host == "" {
			bad(line, "cluster.url %q: want nats://host:port or tls://host:port", cl.URL)
		} else if u.User != nil {
			bad(line, "cluster.url: no credentials in the file: KOTHD_NATS_TOKEN or KOTHD_NATS_CREDS in the environment")
		}
	}
	if cl.ShardGames < 0 || cl.MaxDeliver < 0 || cl.AckWait < 0 {
		bad(line, "cluster: shard_games, max_deliver and ack_wait must not be negative")
	}
	if cl.AckWait != 0 && cl.Wait() < time.Second {
		bad(line, "cluster.ack_wait %s: at least 1s", cl.Wait())
	}
}

// loopback reports whether host (of host:port) is reachable from this machine only:
// localhost or a loopback address. An empty host is every interface; any other name may
// resolve to a reachable address.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// MarshalYAML writes a duration as it is read ("2s"), so a challenge sent to a worker
// reads back the same.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }
