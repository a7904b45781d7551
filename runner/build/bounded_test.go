package build

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/runner/sandbox"
	"github.com/kothd/kothd/runner/sandbox/sandboxtest"
)

// watchDisk samples what the tree under root uses on the host's disk every 10 ms until
// the returned function is called, which returns the most it saw.
func watchDisk(root string) (stop func() int64) {
	var (
		mu   sync.Mutex
		peak int64
		done = make(chan struct{})
		wg   sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			u, _ := sandbox.UsageOf(root)
			mu.Lock()
			peak = max(peak, u.Bytes)
			mu.Unlock()
			select {
			case <-done:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	return func() int64 {
		close(done)
		wg.Wait()
		return peak
	}
}

// entries lists dir's names, sorted.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names
}

// onlyLog checks that a failed build left its log in dir and nothing else, and that the
// log says how it failed.
func onlyLog(t *testing.T, dir string, be *BuildError) {
	t.Helper()
	if got := entries(t, dir); !slices.Equal(got, []string{BuildLog}) {
		t.Errorf("the failed build left %v in its directory, want only %s", got, BuildLog)
	}
	b, _ := os.ReadFile(filepath.Join(dir, BuildLog))
	if !strings.HasPrefix(string(b), be.Error()) {
		t.Errorf("%s holds %q, want it to start with %q", BuildLog, b, be.Error())
	}
}

// fillC is a C file whose object file holds mb MiB (the assembler writes them, to a
// temporary file under TMPDIR).
func fillC(name string, mb int) string {
	return fmt.Sprintf("__asm__(\".data\\n.globl %s\\n%s: .fill %d,1,1\\n\");\n", name, name, mb<<20)
}

// A C answer whose build writes far past its allowance: 8 files whose objects hold 30
// MiB each (the compiler keeps every object until it links), under a 32 MiB allowance.
// The assembler's write fails inside the sandbox; the failure is the answer's and names
// the allowance; the host's disk never holds more than the sources; the bot directory
// keeps only the log. Real gcc in real bwrap.
func TestBuildDiskFillerStopped(t *testing.T) {
	sb := sandboxtest.NeedBwrap(t)
	lang := loadLanguages(t)["c"]
	root := t.TempDir()
	dir := filepath.Join(root, "1-abc")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "bot.c", "int main(void) { return 0; }\n")
	for i := range 8 {
		writeFile(t, dir, fmt.Sprintf("f%d.c", i), fillC(fmt.Sprintf("f%d", i), 30))
	}
	stop := watchDisk(root)
	log, err := Build(context.Background(), sb, nil, lang, dir, sandbox.Limits{DirMB: 32, MemoryMB: 512}, time.Minute)
	peak := stop()
	var be *BuildError
	if !errors.As(err, &be) || be.How != "the build wrote more than its 32 MiB disk allowance (limits.build_disk_mb)" {
		t.Fatalf("err = %v, want a build error naming the disk allowance; log:\n%s", err, log)
	}
	if !strings.Contains(be.Error(), "32 MiB disk allowance") {
		t.Errorf("the error says %q", be.Error())
	}
	if peak > 1<<20 {
		t.Errorf("the host's disk held %d bytes under the data directory during the build, want the sources' few KiB", peak)
	}
	onlyLog(t, dir, be)
	t.Logf("peak on the host's disk %d bytes; log: %s", peak, log)
}

// A build that makes too many files: the inodes run out (one per 4 KiB of the allowance:
// 1,024 under 4 MiB) before the bytes do; the failure names them and leaves only the log.
// (The host's C and Java builds run no code of the answer; a language whose build does,
// like this one, could.)
func TestBuildInodeFillerStopped(t *testing.T) {
	sb := sandboxtest.NeedBwrap(t)
	lang := config.Language{File: "bot.sh", Build: []string{"sh", "./bot.sh"}}
	root := t.TempDir()
	dir := filepath.Join(root, "2-abc")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "bot.sh", "mkdir -p d; i=0; while [ $i -lt 20000 ]; do : > d/f$i || exit 1; i=$((i+1)); done\n")
	stop := watchDisk(root)
	log, err := Build(context.Background(), sb, nil, lang, dir, sandbox.Limits{DirMB: 4}, time.Minute)
	peak := stop()
	var be *BuildError
	if !errors.As(err, &be) || !strings.Contains(be.How, "more than its 1024 files and directories") {
		t.Fatalf("err = %v, want a build error naming the files; log:\n%s", err, log)
	}
	if peak > 1<<20 {
		t.Errorf("the host's disk held %d bytes under the data directory during the build", peak)
	}
	onlyLog(t, dir, be)
}

// A C build that fails leaving temporaries: the first file's object (8 MiB) is written,
// then the second file, an include bomb, spends the CPU time and the sandbox is killed
// with the compiler driver, which never removes its temporaries. The bot directory keeps
// only the log, and so does a plain compile error (no half-built leftovers).
func TestBuildFailureLeavesOnlyLog(t *testing.T) {
	sb := sandboxtest.NeedBwrap(t)
	lang := loadLanguages(t)["c"]
	root := t.TempDir()
	dir := filepath.Join(root, "3-abc")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var log string
	var err error
	for range 3 { // a build the wall-clock backstop stops on a busy host is the host's: again
		writeFile(t, dir, "a.c", fillC("a", 8))
		writeFile(t, dir, "b.c", "#include \"b.c\"\n#include \"b.c\"\nint main(void) { return 0; }\n")
		if log, err = Build(context.Background(), sb, nil, lang, dir, sandbox.Limits{MemoryMB: 512}, 3*time.Second); !errors.Is(err, ErrBuildHost) {
			break
		}
	}
	var be *BuildError
	if !errors.As(err, &be) || !strings.Contains(be.How, "timed out") {
		t.Fatalf("err = %v, want a time-out; log:\n%s", err, log)
	}
	onlyLog(t, dir, be)

	broken := filepath.Join(root, "4-abc")
	if err := os.Mkdir(broken, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, broken, "bot.c", "int main(void) { return 0 }\n")
	_, err = Build(context.Background(), sb, nil, lang, broken, sandbox.Limits{}, time.Minute)
	if !errors.As(err, &be) {
		t.Fatalf("err = %v, want a compile error", err)
	}
	onlyLog(t, broken, be)
}

// BenchmarkBuildDiskFiller plays the attack at full size: a C answer of 70 files whose
// objects hold 30 MiB each (2.1 GB of compiler temporaries) and an include bomb last, so
// that the build runs out of time with the compiler driver killed before it can remove
// its temporaries. It reports the most the host's disk held under the data directory
// during the build (peak-bytes) and what the bot directory kept after it (left-bytes),
// under the default allowance (DefaultDiskMB).
func BenchmarkBuildDiskFiller(b *testing.B) {
	sb := sandboxtest.NeedBwrap(b)
	lang := loadLanguages(b)["c"]
	for b.Loop() {
		b.StopTimer()
		root := b.TempDir()
		dir := filepath.Join(root, "5-abc")
		if err := os.Mkdir(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for i := range 70 {
			writeFile(b, dir, fmt.Sprintf("f%02d.c", i), fillC(fmt.Sprintf("f%02d", i), 30))
		}
		writeFile(b, dir, "zz.c", "#include \"zz.c\"\n#include \"zz.c\"\nint main(void) { return 0; }\n")
		b.StartTimer()
		stop := watchDisk(root)
		_, err := Build(context.Background(), sb, nil, lang, dir, sandbox.Limits{MemoryMB: 1024}, 20*time.Second)
		peak := stop()
		left, _ := sandbox.UsageOf(dir)
		b.ReportMetric(float64(peak), "peak-bytes")
		b.ReportMetric(float64(left.Bytes), "left-bytes")
		b.Logf("build: %v", err)
	}
}

// BenchmarkBuildSandboxed measures an honest build in the real sandbox, as a cycle runs it:
// the C and Java hello-world bots (testdata/langs). Beside the wall time, the daemon's own
// CPU time per build (daemon-cpu-ms: staging the sources, mounting, copying the result out;
// the compiler's is its children's).
func BenchmarkBuildSandboxed(b *testing.B) {
	sb := sandboxtest.NeedBwrap(b)
	langs := loadLanguages(b)
	for _, key := range []string{"c", "java"} {
		b.Run(key, func(b *testing.B) {
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				dir := copyBot(b, key)
				before := selfCPU()
				b.StartTimer()
				if log, err := Build(context.Background(), sb, nil, langs[key], dir, sandbox.Limits{MemoryMB: 1024, Procs: 64}, 5*time.Minute); err != nil {
					b.Fatalf("%v\n%s", err, log)
				}
				cpu += selfCPU() - before
			}
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "daemon-cpu-ms/op")
		})
	}
}

// selfCPU is the CPU time this process has used (user and system), its children's apart.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Where the host cannot bound a build's directory (here: no sandbox), what the build wrote
// is measured after it: over the allowance, it fails as the answer's, even though the
// compiler succeeded, and leaves only its log.
func TestBuildOverAllowanceUnbounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "bot.src", "")
	lang := config.Language{File: "bot.src", Build: []string{"sh", "-c", "head -c 3000000 /dev/zero > big"}}
	_, err := Build(context.Background(), sandbox.Unsandboxed{}, nil, lang, dir, sandbox.Limits{DirMB: 2}, time.Minute)
	var be *BuildError
	if !errors.As(err, &be) || be.How != "the build wrote more than its 2 MiB disk allowance (limits.build_disk_mb)" {
		t.Fatalf("err = %v, want the disk allowance named", err)
	}
	onlyLog(t, dir, be)
}
