package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeCgroups is a cgroupfs written by the test: directories of files with the names and
// formats the kernel's have, for the v2 paths this host (cgroup v1) cannot run for real.
type fakeCgroups struct {
	t    *testing.T
	root string
	v2   bool
}

func newFakeCgroups(t *testing.T, v2 bool) *fakeCgroups {
	return &fakeCgroups{t: t, root: t.TempDir(), v2: v2}
}

// set writes files of the cgroup at rel: name=content pairs.
func (f *fakeCgroups) set(rel string, files ...string) {
	f.t.Helper()
	dir := filepath.Join(f.root, rel)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		f.t.Fatal(err)
	}
	for i := 0; i+1 < len(files); i += 2 {
		if err := os.WriteFile(filepath.Join(dir, files[i]), []byte(files[i+1]+"\n"), 0o644); err != nil {
			f.t.Fatal(err)
		}
	}
}

func (f *fakeCgroups) unset(rel, file string) {
	f.t.Helper()
	if err := os.Remove(filepath.Join(f.root, rel, file)); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fakeCgroups) tree() *cgroupTree {
	return &cgroupTree{V2: f.v2, Mem: f.root, Pids: f.root, cpu: f.root, acct: f.root}
}

func mib(n int64) string { return strconv.FormatInt(n<<20, 10) }

// events is a v2 memory.events(.local) file's content.
func events(oom, max, kills int) string {
	return "low 0\nhigh 0\nmax " + strconv.Itoa(max) + "\noom " + strconv.Itoa(oom) + "\noom_kill " + strconv.Itoa(kills) + "\noom_group_kill 0"
}

// A run of 400 MiB with three answers (share 133 MiB), each bounded to 200 MiB; the
// victim's sandbox (1 GiB) in answer a1. Each case sets what differs from a kill nobody
// explains and says at which bound judgeKill must place it.
func TestJudgeKillV2(t *testing.T) {
	base := func(t *testing.T) (*fakeCgroups, *sandboxCgroup) {
		f := newFakeCgroups(t, true)
		f.set("run", "memory.max", mib(400), "memory.peak", mib(300), "memory.events", events(0, 0, 1), "memory.events.local", events(0, 0, 0))
		for _, a := range []string{"a1", "a2", "a3"} {
			f.set("run/"+a, "memory.max", mib(200), "memory.peak", mib(100), "memory.events", events(0, 0, 0), "memory.events.local", events(0, 0, 0))
		}
		f.set("run/a1/sb", "memory.max", mib(1024), "memory.peak", mib(100), "memory.events", events(0, 0, 1))
		return f, &sandboxCgroup{Tree: f.tree(), name: "run/a1/sb", answer: "a1"}
	}
	for _, c := range []struct {
		name  string
		setup func(f *fakeCgroups)
		want  memBound
		says  string
	}{
		{"nothing shown reached: the bot's", func(f *fakeCgroups) {}, boundUnexplained, "no bound"},
		{"the sandbox's oom event", func(f *fakeCgroups) { f.set("run/a1/sb", "memory.events", events(1, 3, 1)) }, boundSandbox, "the sandbox's 1024 MiB"},
		{"the sandbox's max event", func(f *fakeCgroups) { f.set("run/a1/sb", "memory.events", events(0, 1, 1)) }, boundSandbox, "memory_mb"},
		{"the sandbox's peak at its limit", func(f *fakeCgroups) { f.set("run/a1/sb", "memory.peak", mib(1023)) }, boundSandbox, "the sandbox's"},
		{"no limit read", func(f *fakeCgroups) { f.unset("run/a1/sb", "memory.max") }, boundSandbox, ""},
		{"the answer's own oom", func(f *fakeCgroups) { f.set("run/a1", "memory.events.local", events(1, 1, 0)) }, boundAnswer, "the answer's 200 MiB, half of the run's memory (limits.total_memory_mb 400 MiB)"},
		{"the answer's peak at its half", func(f *fakeCgroups) { f.set("run/a1", "memory.peak", mib(199)) }, boundAnswer, "half"},
		{"another sandbox's oom in the answer, without memory.events.local", func(f *fakeCgroups) {
			f.unset("run/a1", "memory.events.local")
			f.set("run/a1", "memory.events", events(1, 1, 1))
		}, boundAnswer, "half"},
		{"the run's own oom, its answer within its share: the host's", func(f *fakeCgroups) { f.set("run", "memory.events.local", events(1, 2, 0)) }, boundRun, "not the bot's fault (its answer held at most 100 MiB of its share of 133 MiB"},
		{"the run's peak at its bound, its answer within its share", func(f *fakeCgroups) { f.set("run", "memory.peak", mib(400)) }, boundRun, "limits.total_memory_mb 400 MiB among 3 answers"},
		{"the run's oom, its answer above its share", func(f *fakeCgroups) {
			f.set("run", "memory.events.local", events(1, 2, 0))
			f.set("run/a1", "memory.peak", mib(150))
		}, boundRunShare, "while its answer held 150 MiB, more than its share of 133 MiB"},
		{"the run's oom, its answer's peak unknown (a kernel before 5.19)", func(f *fakeCgroups) {
			f.set("run", "memory.events.local", events(1, 2, 0))
			f.unset("run/a1", "memory.peak")
		}, boundRunShare, ""},
		{"the run's kill counted below it only (no memory.events.local): not shown", func(f *fakeCgroups) {
			f.unset("run", "memory.events.local")
			f.set("run", "memory.events", events(1, 1, 1))
		}, boundUnexplained, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, cg := base(t)
			c.setup(f)
			k := cg.judgeKill()
			if k.Bound != c.want || !strings.Contains(k.detail(), c.says) {
				t.Errorf("judged %d: %q; want %d saying %q", k.Bound, k.detail(), c.want, c.says)
			}
			if k.own() != (c.want != boundRun) {
				t.Errorf("own %v", k.own())
			}
		})
	}
}

// The same on v1's files: failcnt where the kernel counts it, the peaks
// (max_usage_in_bytes, memsw's) where it does not.
func TestJudgeKillV1(t *testing.T) {
	base := func(t *testing.T) (*fakeCgroups, *sandboxCgroup) {
		f := newFakeCgroups(t, false)
		v1 := func(rel string, limit, peak int64) {
			f.set(rel, "memory.limit_in_bytes", mib(limit), "memory.max_usage_in_bytes", mib(peak), "memory.memsw.max_usage_in_bytes", mib(peak),
				"memory.failcnt", "0", "memory.memsw.failcnt", "0", "memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 0")
		}
		v1("run", 400, 300)
		for _, a := range []string{"a1", "a2", "a3"} {
			v1("run/"+a, 200, 100)
		}
		v1("run/a1/sb", 1024, 100)
		return f, &sandboxCgroup{Tree: f.tree(), name: "run/a1/sb", answer: "a1"}
	}
	for _, c := range []struct {
		name  string
		setup func(f *fakeCgroups)
		want  memBound
	}{
		{"nothing shown", func(f *fakeCgroups) {}, boundUnexplained},
		{"the sandbox's memsw failcnt", func(f *fakeCgroups) { f.set("run/a1/sb", "memory.memsw.failcnt", "2") }, boundSandbox},
		{"the sandbox's peak (failcnt left at 0)", func(f *fakeCgroups) { f.set("run/a1/sb", "memory.max_usage_in_bytes", mib(1024)) }, boundSandbox},
		{"the answer's failcnt", func(f *fakeCgroups) { f.set("run/a1", "memory.failcnt", "1") }, boundAnswer},
		{"the run's peak, its answer within its share", func(f *fakeCgroups) { f.set("run", "memory.memsw.max_usage_in_bytes", mib(400)) }, boundRun},
		{"the run's failcnt, its answer above its share", func(f *fakeCgroups) {
			f.set("run", "memory.failcnt", "1")
			f.set("run/a1", "memory.max_usage_in_bytes", mib(140))
		}, boundRunShare},
		{"v1's infinite limit on the run: not shown", func(f *fakeCgroups) {
			f.set("run", "memory.limit_in_bytes", "9223372036854771712", "memory.max_usage_in_bytes", mib(900))
		}, boundUnexplained},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, cg := base(t)
			c.setup(f)
			if k := cg.judgeKill(); k.Bound != c.want {
				t.Errorf("judged %d: %q; want %d", k.Bound, k.detail(), c.want)
			}
		})
	}
}

// The run's memory watcher on v2's files: in a run of 400 MiB at 95 % with three answers
// (share 133 MiB), it stops the answer furthest above its share, page cache not counted
// (a3 holds the most, but 40 MiB of it is file pages the kernel would reclaim), and only
// that one; with every answer within its share it stops none.
func TestMemoryWatcherV2(t *testing.T) {
	f := newFakeCgroups(t, true)
	stat := func(fileMiB int64) string {
		return "anon 0\nfile " + mib(fileMiB) + "\nactive_file " + mib(fileMiB/2) + "\ninactive_file " + mib(fileMiB-fileMiB/2) + "\nshmem 0"
	}
	f.set("run", "memory.max", mib(400), "memory.current", mib(380), "memory.stat", stat(10))
	held := map[string]int64{"a1": 90, "a2": 140, "a3": 150}
	files := map[string]int64{"a1": 0, "a2": 0, "a3": 40}
	s := &Shares{node: node{Tree: f.tree(), Rel: "run"}, memoryMB: 400, answers: map[string]*Share{}}
	for a, mb := range held {
		f.set("run/"+a, "memory.max", mib(200), "memory.current", mib(mb), "memory.stat", stat(files[a]))
		f.set("run/"+a+"/sb", "cgroup.procs", "", "cgroup.events", "populated 1\nfrozen 0")
		share := &Share{node: node{Tree: s.Tree, Rel: "run/" + a}}
		share.track(&sandboxCgroup{Tree: s.Tree, name: "run/" + a + "/sb", answer: a})
		s.answers[a] = share
	}
	stopped := func() []string {
		var out []string
		for a, share := range s.answers {
			for cg := range share.live {
				if k := cg.stopped.Load(); k != nil {
					out = append(out, a+": "+k.detail())
				}
			}
		}
		return out
	}
	s.watch()
	deadline := time.Now().Add(10 * time.Second)
	for s.Stops() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	f.set("run/a2", "memory.current", mib(0)) // its processes gone
	f.set("run", "memory.current", mib(240))
	s.StopWatching()
	got := stopped()
	if len(got) != 1 || !strings.HasPrefix(got[0], "a2: the run's memory was 95% full and its answer held 140 MiB, the most above its share of 133 MiB (limits.total_memory_mb 400 MiB among 3 answers)") {
		t.Fatalf("stopped: %q; want a2 alone, for its share", got)
	}
	if _, err := os.Stat(filepath.Join(f.root, "run/a2/sb/cgroup.kill")); err != nil {
		t.Errorf("a2's sandbox was not killed through cgroup.kill: %v", err)
	}

	// Everyone within the share: nobody is stopped, whatever the run holds.
	for a := range held {
		f.set("run/"+a, "memory.current", mib(130), "memory.stat", stat(0))
	}
	if s.stopOverShare(390<<20, 400<<20) {
		t.Errorf("an answer within its share was stopped: %q", stopped())
	}
}

// BenchmarkRunMemoryRead is what the run's memory watcher costs per look while the run is
// below its trigger: one pread of the run's usage through a held-open file.
func BenchmarkRunMemoryRead(b *testing.B) {
	sb := NeedBwrap(b)
	if sb.cgroups == nil {
		b.Skip("no cgroups")
	}
	shares, err := NewShares(sb, 400)
	if err != nil {
		b.Fatal(err)
	}
	defer shares.Close()
	shares.StopWatching()
	path := filepath.Join(shares.Tree.Mem, shares.Rel, pick(shares.Tree.V2, "memory.current", "memory.usage_in_bytes"))
	var f liveFile
	defer f.close()
	var buf [64]byte
	b.ResetTimer()
	for range b.N {
		data, err := f.read(path, buf[:])
		if err != nil {
			b.Fatal(err)
		}
		if _, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64); err != nil {
			b.Fatal(err)
		}
	}
}

// The watcher's sleep over the room left below its trigger, at 2 GiB/s per CPU on 2 CPUs:
// the time the bots would take to fill it, between 5 and 250 ms, whatever the run's size.
// A 16 GiB run (14.4 GiB of room while idle) slept 5 ms: room × 10⁹ passed int64.
func TestWatchSleep(t *testing.T) {
	rate := int64(memWatchFillRate) * 2
	for _, c := range []struct {
		room int64
		want time.Duration
	}{
		{0, memWatchMin},
		{10 << 20, memWatchMin},
		{40 << 20, 9765625 * time.Nanosecond},
		{1 << 30, memWatchMax},
		{16 << 30 / 10 * 9, memWatchMax}, // a 16 GiB run, idle
		{1 << 40, memWatchMax},           // a 1 TiB run
	} {
		if got := watchSleep(c.room, rate); got != c.want {
			t.Errorf("room %d MiB: sleep %s, want %s", c.room>>20, got, c.want)
		}
	}
}

// TestWatchTrigger: 90 % of the run's bound, never within memWatchHeadroom of it, and not
// under half of a run too small for the headroom.
func TestWatchTrigger(t *testing.T) {
	for _, c := range []struct{ limit, want int64 }{
		{400 << 20, 304 << 20},            // small: the headroom
		{960 << 20, 960 << 20 / 100 * 90}, // where the two meet (90 %, truncated)
		{4 << 30, 4 << 30 / 100 * 90},     // large: 90 %
		{100 << 20, 50 << 20},             // too small for the headroom: half
		{1 << 40, 1 << 40 / 100 * 90},     // 1 TiB
	} {
		if got := watchTrigger(c.limit); got != c.want {
			t.Errorf("run of %d MiB: trigger %d MiB, want %d MiB", c.limit>>20, got>>20, c.want>>20)
		}
	}
}
