package main

import (
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// freeAddr is a localhost address nothing listens on (for a moment).
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func get(url string) (int, string) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// The daemon with listen: serves /healthz (200) and /metrics while it plays, scraped here
// during a run: the build, the run's games done so far, the quota (unknown from a
// snapshot: -1).
func TestDaemonServesMetricsWhilePlaying(t *testing.T) {
	addr := freeAddr(t)
	cfg := hostConfig(t, 200000, "listen: "+addr)
	p := startKothd(t, "daemon", "--config", cfg, "--snapshot", hostSnapshot(t))
	done := regexp.MustCompile(`kothd_run_games_done\{challenge="forty"\} (\d+)`)
	deadline := time.Now().Add(3 * time.Minute)
	var metrics string
	for {
		var code int
		code, metrics = get("http://" + addr + "/metrics")
		if m := done.FindStringSubmatch(metrics); code == 200 && m != nil && m[1] != "0" {
			break
		}
		if time.Now().After(deadline) {
			_, errs := p.output()
			t.Fatalf("no games done in /metrics within 3 minutes:\n%s\nlog:\n%s", metrics, errs)
		}
		select {
		case <-p.done:
			_, errs := p.output()
			t.Fatalf("daemon ended: %s", errs)
		case <-time.After(300 * time.Millisecond):
		}
	}
	for _, want := range []string{"kothd_build_info{", "kothd_api_quota_remaining -1", "# TYPE kothd_run_games_done gauge"} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if code, body := get("http://" + addr + "/healthz"); code != 200 || !strings.HasPrefix(body, "ok") {
		t.Errorf("/healthz while playing: %d %q", code, body)
	}
	n, _ := strconv.Atoi(done.FindStringSubmatch(metrics)[1])
	t.Logf("%d games done when scraped", n)
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	if code := p.wait(t, 30*time.Second); code != 0 {
		t.Errorf("exit %d", code)
	}
}
