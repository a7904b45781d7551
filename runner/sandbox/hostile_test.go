package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
)

// The hostile-bot suite: real attacks by real processes under real bwrap. Each bot tries
// one thing a stranger's code might (steal the daemon's tokens, phone home, read other
// bots' files or the database, write outside its directory, fork-bomb, exhaust memory,
// spin, sleep, flood, close stdout, leave children behind, kill its parent). Every attack
// must fail, be recorded with the right outcome, leave no process behind, and leave the
// other bots' results intact.
//
// These attacks are real: a fork bomb or `kill -9` outside a sandbox would hurt the
// machine. The suite therefore runs only under a working bwrap sandbox, and fails (it
// does not skip) when bwrap cannot run, unless KOTHD_NO_BWRAP=1 says so explicitly.

var (
	bwrapOnce sync.Once
	bwrapSB   *Bwrap
	bwrapErr  error
)

// NeedBwrap returns the bwrap sandbox, probed once per test binary.
func NeedBwrap(t testing.TB) *Bwrap {
	t.Helper()
	if os.Getenv("KOTHD_NO_BWRAP") == "1" {
		t.Skip("KOTHD_NO_BWRAP=1: sandbox tests skipped on request")
	}
	bwrapOnce.Do(func() {
		var sb Sandbox
		sb, bwrapErr = NewSandbox("bwrap", slog.New(slog.NewTextHandler(io.Discard, nil)))
		if bwrapErr == nil {
			bwrapSB = sb.(*Bwrap)
		}
	})
	if bwrapErr != nil {
		t.Fatalf("the bwrap sandbox does not work on this host (set KOTHD_NO_BWRAP=1 to skip sandbox tests explicitly): %v", bwrapErr)
	}
	return bwrapSB
}

// hostileWorld is a data directory with things worth stealing, a listener worth calling,
// and a token in the daemon's environment.
type hostileWorld struct {
	root, Data string
	Marker     string            // in the command line of every process the bots start
	secrets    []string          // text that must never reach a bot
	Files      map[string]string // host files that must not change, with their content
	ln         *net.TCPListener
}

func NewHostileWorld(t *testing.T) *hostileWorld {
	t.Helper()
	root := t.TempDir()
	w := &hostileWorld{root: root, Data: filepath.Join(root, "data"), Files: map[string]string{},
		Marker: strconv.Itoa(313370000 + rand.IntN(10000))}
	token, key := "ghp_kothdTestToken"+w.Marker, "sekey"+w.Marker
	t.Setenv("GITHUB_TOKEN", token)
	t.Setenv("SE_API_KEY", key)
	w.secrets = []string{token, key, "db-secret-" + w.Marker, "config-secret-" + w.Marker, "victim-secret-" + w.Marker}
	// The question table's write token (cron/question.go) is the daemon's too.
	access := "se-write-token" + w.Marker
	t.Setenv("SE_ACCESS_TOKEN", access)
	w.secrets = append(w.secrets, access)
	victim := filepath.Join(w.Data, "bots", "victim")
	if err := os.MkdirAll(victim, 0o755); err != nil {
		t.Fatal(err)
	}
	w.Files[filepath.Join(w.Data, "kothd.db")] = "SQLite format 3\x00" + w.secrets[2]
	w.Files[filepath.Join(w.Data, "config.yaml")] = "github:\n  token: " + w.secrets[3] + "\n"
	w.Files[filepath.Join(victim, "secret.txt")] = w.secrets[4] + "\n"
	w.Files[filepath.Join(victim, "bot.py")] = "print('the victim')\n"
	for p, content := range w.Files {
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	w.ln = ln
	return w
}

// BotDir makes a bot's directory holding what its attacks aim at, as targets.json (for
// Python) and targets.sh (for shell).
func (w *hostileWorld) BotDir(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(w.Data, "bots", name)
	if name == "victim" {
		return dir
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	secrets := []string{filepath.Join(w.Data, "kothd.db"), filepath.Join(w.Data, "config.yaml"),
		filepath.Join(w.Data, "bots", "victim", "secret.txt")}
	writes := []string{
		filepath.Join(w.Data, "config.yaml"), filepath.Join(w.Data, "bots", "victim", "bot.py"),
		"../victim/bot.py", filepath.Join(w.root, "escaped"), "/tmp/kothd-pwned-" + w.Marker,
		"/usr/kothd-pwned-" + w.Marker, "/etc/kothd-pwned-" + w.Marker, "/kothd-pwned-" + w.Marker,
	}
	targets := map[string]any{"port": w.ln.Addr().(*net.TCPAddr).Port, "host_pid": os.Getpid(), "marker": w.Marker,
		"data_dir": w.Data, "secrets": secrets, "writes": writes}
	js, _ := json.Marshal(targets)
	sh := fmt.Sprintf("PORT=%d\nHOST_PID=%d\nMARKER=%s\nDATA_DIR=%s\nSECRETS=%q\nWRITES=%q\n",
		targets["port"], os.Getpid(), w.Marker, w.Data, strings.Join(secrets, " "), strings.Join(writes, " "))
	if err := os.WriteFile(filepath.Join(dir, "targets.json"), js, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "targets.sh"), []byte(sh), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Leaks reports the secrets text contains.
func (w *hostileWorld) Leaks(text string) []string {
	var found []string
	for _, s := range w.secrets {
		if strings.Contains(text, s) {
			found = append(found, s)
		}
	}
	return found
}

// CheckAftermath verifies that no attack had an effect outside its own directory.
func (w *hostileWorld) CheckAftermath(t *testing.T) {
	t.Helper()
	waitNoLeftovers(t, w.Marker)

	_ = w.ln.SetDeadline(time.Now().Add(200 * time.Millisecond))
	if c, err := w.ln.Accept(); err == nil {
		b, _ := io.ReadAll(io.LimitReader(c, 200))
		c.Close()
		t.Errorf("a bot reached the test's listener on 127.0.0.1 and sent %q", b)
	}

	for p, want := range w.Files {
		if got, err := os.ReadFile(p); err != nil || string(got) != want {
			t.Errorf("host file %s changed: %q, %v", p, got, err)
		}
	}
	for _, p := range []string{filepath.Join(w.root, "escaped"), "/tmp/kothd-pwned-" + w.Marker,
		"/usr/kothd-pwned-" + w.Marker, "/etc/kothd-pwned-" + w.Marker, "/kothd-pwned-" + w.Marker} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("a bot wrote %s outside its directory", p)
			os.Remove(p)
		}
	}

	// Whatever the bots could read, they put in their own directories.
	err := filepath.WalkDir(filepath.Join(w.Data, "bots"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || strings.Contains(p, "/victim/") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if found := w.Leaks(string(b)); len(found) > 0 {
			t.Errorf("%s holds secrets %v", p, found)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}

// waitNoLeftovers waits for every process carrying marker in its command line to be gone
// (the kernel tears a killed sandbox down asynchronously) and fails if one is still
// running after thirty seconds (a loaded machine is slow to tear down), killing it so the
// machine is left clean.
func waitNoLeftovers(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		left := processesWith(marker)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("processes left running: %v", left)
			for pid := range left {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// processesWith lists the live (non-zombie) processes whose command line contains s.
func processesWith(s string) map[int]string {
	out := map[int]string{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil || !strings.Contains(string(cmdline), s) {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if i := strings.LastIndexByte(string(stat), ')'); err != nil || (i > 0 && i+2 < len(stat) && stat[i+2] == 'Z') {
			continue
		}
		out[pid] = strings.ReplaceAll(string(cmdline), "\x00", " ")
	}
	return out
}

func Detail(f *engine.Fault) string {
	if f == nil {
		return ""
	}
	return strings.ReplaceAll(f.Detail, "\n", " | ")
}

// oneshotAttack is one hostile one-shot bot (runner/sandbox/testdata/hostile/oneshot) and how its
// decision must end.
type oneshotAttack struct {
	script  string
	cpu     time.Duration // CPU limit, when the attack needs one
	timeout time.Duration // wall limit (default 30 s)
	want    engine.Outcome
	answer  string // the end of the answer, when want is OK
}

var oneshotAttacks = []oneshotAttack{
	{script: "env.sh", want: engine.OK, answer: "done"},
	{script: "net.sh", want: engine.Crash},
	{script: "snoop.sh", want: engine.Crash},
	{script: "vandal.sh", want: engine.Crash},
	{script: "forkbomb.py", want: engine.Crash},
	{script: "hog.py", want: engine.MemoryLimit},
	{script: "spin.sh", cpu: time.Second, timeout: time.Minute, want: engine.Timeout},
	{script: "sleep.sh", timeout: time.Second, want: engine.Timeout},
	{script: "flood.sh", want: engine.OutputLimit},
	{script: "diskfill.sh", want: engine.OutputLimit},
	{script: "closeout.sh", timeout: time.Second, want: engine.Timeout},
	{script: "orphan.sh", want: engine.OK, answer: "1"},
	{script: "parricide.sh", want: engine.OK, answer: "survived"},
	// Kernel memory through /tmp's inodes: there is no /tmp to write to.
	{script: "inodes.py", want: engine.OK, answer: "stopped"},
}

// wholeSandboxAttacks are limited by the sandbox's cgroup as a whole, which a sandbox
// per decision (RunArgv) charges to the decision: memory held by forked children
// together, CPU spent by forked children.
var wholeSandboxAttacks = []oneshotAttack{
	{script: "forkhog.py", want: engine.MemoryLimit},
	{script: "forkspin.sh", cpu: time.Second, timeout: time.Minute, want: engine.Timeout},
}

// install puts the attack's script in a fresh bot directory and returns the spec that runs
// it under lim, and its wall limit.
func (w *hostileWorld) install(t *testing.T, c oneshotAttack, lim Limits) (ProcSpec, time.Duration) {
	t.Helper()
	name := strings.TrimSuffix(strings.TrimSuffix(c.script, ".sh"), ".py")
	dir := w.BotDir(t, name)
	src, err := os.ReadFile(filepath.Join("testdata/hostile/oneshot", c.script))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, c.script), src, 0o644); err != nil {
		t.Fatal(err)
	}
	interp := "bash"
	if strings.HasSuffix(c.script, ".py") {
		interp = "/usr/bin/python3"
	}
	if c.cpu > 0 {
		lim.CPUTime = c.cpu
	}
	timeout := c.timeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	return ProcSpec{Dir: dir, Argv: []string{interp, c.script}, Limits: lim}, timeout
}

// judge checks one decision of an attack: its outcome, its answer, and that nothing secret
// reached the bot's output or the fault shown to participants.
func (w *hostileWorld) judge(t *testing.T, c oneshotAttack, ans string, f *engine.Fault) {
	t.Helper()
	if found := w.Leaks(ans + Detail(f)); len(found) > 0 {
		t.Errorf("output or fault detail holds secrets %v", found)
	}
	if got := outcome(f); got != c.want {
		t.Errorf("outcome %q, want %q (%.300s)", got, c.want, Detail(f))
	}
	if c.want == engine.OK && !strings.HasSuffix(ans, c.answer) {
		t.Errorf("answer %q, want it to end in %q", ans, c.answer)
	}
}

func TestHostileOneShot(t *testing.T) {
	sb := NeedBwrap(t)
	w := NewHostileWorld(t)
	lim := Limits{MemoryMB: 256, Procs: 16, OpenFiles: 64, OutputBytes: 64 << 10, FileSizeMB: 8}
	t.Run("attacks", func(t *testing.T) {
		for _, c := range append(slices.Clone(oneshotAttacks), wholeSandboxAttacks...) {
			t.Run(c.script, func(t *testing.T) {
				t.Parallel()
				spec, timeout := w.install(t, c, lim)
				ans, f := RunArgv(context.Background(), sb, spec, []string{w.Marker}, timeout)
				w.judge(t, c, ans, f)
				if st, err := os.Stat(filepath.Join(spec.Dir, "big")); err == nil && st.Size() > int64(lim.FileSizeMB)<<20 {
					t.Errorf("a file of %d bytes was written past the %d MiB limit", st.Size(), lim.FileSizeMB)
				}
				t.Logf("%-12s %-12s %.160s", c.script, outcome(f), Detail(f))
			})
		}
	})
	w.CheckAftermath(t)
}
