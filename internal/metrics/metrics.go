// Package metrics is what a host watches a running daemon by: Prometheus metrics at
// /metrics and a health check at /healthz, served on the config's `listen:` address. The
// cycle reports to it through cron.Watcher; it knows nothing of the cycle.
package metrics

import (
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics holds the daemon's metrics in a registry of its own (no global state: tests run
// several).
type Metrics struct {
	reg         *prometheus.Registry
	runs        *prometheus.CounterVec
	games       *prometheus.CounterVec
	decisions   *prometheus.CounterVec
	faults      *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	gamesDone   *prometheus.GaugeVec
	published   *prometheus.GaugeVec
	pubFailures *prometheus.CounterVec
	comments    *prometheus.CounterVec // answer_comments: posted, refused
	cycles      *prometheus.CounterVec
	shards      *prometheus.GaugeVec

	mu       sync.Mutex
	lastOK   time.Time
	failing  error              // the last cycle's failure; nil when it succeeded
	quotaFor func() (int, bool) // the API's requests left, and whether known (SetQuota)
}

// New makes the metrics; build labels kothd_build_info (version, revision, Go).
func New(version, revision, goVersion string) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	f := func(c prometheus.Collector) { m.reg.MustRegister(c) }
	m.runs = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kothd_runs_total", Help: "Runs ended, by challenge and outcome (done, failed, interrupted)."}, []string{"challenge", "outcome"})
	m.games = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kothd_games_played_total", Help: "Games played in runs that ended, by challenge."}, []string{"challenge"})
	m.decisions = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kothd_decisions_total", Help: "Bot decisions asked for (calls, launches), by challenge."}, []string{"challenge"})
	m.faults = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kothd_faults_total", Help: "Bot decisions that failed, by challenge and kind (timeout, crash, host fault, ...)."}, []string{"challenge", "kind"})
	m.duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "kothd_run_duration_seconds", Help: "Wall time of runs that ended.",
		Buckets: prometheus.ExponentialBuckets(1, 4, 10)}, []string{"challenge"})
	m.gamesDone = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "kothd_run_games_done", Help: "Games done in the run being played (0 when none)."}, []string{"challenge"})
	m.published = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "kothd_last_publication_success_timestamp_seconds", Help: "When a board was last published to a target (the question's table: edited, or found showing the board), Unix seconds."}, []string{"challenge", "target"})
	m.pubFailures = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kothd_publication_failures_total", Help: "Failed publications, by challenge and target."}, []string{"challenge", "target"})
	quota := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "kothd_api_quota_remaining", Help: "Stack Exchange API requests left today, as last reported (-1: not known yet)."}, func() float64 {
		m.mu.Lock()
		q := m.quotaFor
		m.mu.Unlock()
		if q == nil {
			return -1
		}
		if n, ok := q(); ok {
			return float64(n)
		}
		return -1
	})
	m.comments = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kothd_answer_comments_total", Help: "Comments on answers not entered (answer_comments), by challenge and outcome (posted, refused)."}, []string{"challenge", "outcome"})
	m.cycles = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kothd_cycles_total", Help: "Daemon ticks ended, by result (ok, failed, publication_failed)."}, []string{"result"})
	m.shards = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "kothd_shards", Help: "Shards of the run a cluster plays, by challenge and state (queued, in_flight, done)."}, []string{"challenge", "state"})
	build := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "kothd_build_info", Help: "kothd's build (always 1)."}, []string{"version", "revision", "goversion"})
	build.WithLabelValues(version, revision, goVersion).Set(1)
	for _, c := range []prometheus.Collector{m.runs, m.games, m.decisions, m.faults, m.duration, m.gamesDone, m.published, m.pubFailures, quota, m.cycles, m.shards, m.comments, build} {
		f(c)
	}
	return m
}

// RunEnded counts a run that ended (outcome done, failed or interrupted) with its games.
func (m *Metrics) RunEnded(challenge, outcome string, games int, elapsed time.Duration) {
	m.runs.WithLabelValues(challenge, outcome).Inc()
	m.games.WithLabelValues(challenge).Add(float64(games))
	m.duration.WithLabelValues(challenge).Observe(elapsed.Seconds())
	m.gamesDone.WithLabelValues(challenge).Set(0)
}

// Decisions adds a run's decisions and faults: counts by outcome, "ok" for the good ones.
func (m *Metrics) Decisions(challenge string, counts map[string]int) {
	for kind, n := range counts {
		m.decisions.WithLabelValues(challenge).Add(float64(n))
		if kind != "ok" {
			m.faults.WithLabelValues(challenge, kind).Add(float64(n))
		}
	}
}

// Progress is the run in play's games done.
func (m *Metrics) Progress(challenge string, done int) {
	m.gamesDone.WithLabelValues(challenge).Set(float64(done))
}

// Shards counts the shards of the run a cluster plays (cron.ShardWatcher).
func (m *Metrics) Shards(challenge string, queued, inFlight, done int) {
	m.shards.WithLabelValues(challenge, "queued").Set(float64(queued))
	m.shards.WithLabelValues(challenge, "in_flight").Set(float64(inFlight))
	m.shards.WithLabelValues(challenge, "done").Set(float64(done))
}

// Published records a publication's outcome for a target.
func (m *Metrics) Published(challenge, target string, ok bool) {
	if ok {
		m.published.WithLabelValues(challenge, target).SetToCurrentTime()
		return
	}
	m.pubFailures.WithLabelValues(challenge, target).Inc()
}

// Commented records a comment on an answer: posted, or refused by the API.
func (m *Metrics) Commented(challenge string, posted bool) {
	outcome := "refused"
	if posted {
		outcome = "posted"
	}
	m.comments.WithLabelValues(challenge, outcome).Inc()
}

// SetQuota names where the Stack Exchange API's requests left are read at each scrape.
func (m *Metrics) SetQuota(f func() (remaining int, known bool)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.quotaFor = f
}

// CycleEnded records a daemon tick: err nil when it succeeded; publicationOnly when only
// publication targets failed (play went well: still healthy).
func (m *Metrics) CycleEnded(err error, publicationOnly bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case err == nil:
		m.cycles.WithLabelValues("ok").Inc()
		m.failing, m.lastOK = nil, time.Now()
	case publicationOnly:
		m.cycles.WithLabelValues("publication_failed").Inc()
		m.failing, m.lastOK = nil, time.Now()
	default:
		m.cycles.WithLabelValues("failed").Inc()
		m.failing = err
	}
}

// Handler serves /metrics and /healthz: 200 while cycles succeed (or none has ended yet),
// 503 with the failure once the last one failed.
func (m *Metrics) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		m.mu.Lock()
		failing, lastOK := m.failing, m.lastOK
		m.mu.Unlock()
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if failing != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte("failing: the last cycle failed: " + failing.Error() + "\n"))
			return
		}
		msg := "ok\n"
		if !lastOK.IsZero() {
			msg = "ok: last successful cycle " + lastOK.UTC().Format(time.RFC3339) + "\n"
		}
		w.Write([]byte(msg))
	})
	return mux
}
