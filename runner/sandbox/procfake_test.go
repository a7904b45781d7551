package sandbox

import (
	"io"
	"strings"
	"testing"
)

// TestConstantStatMasksEveryCount: every number of /proc/stat is zeroed, field counts
// kept, but btime; procs_running is 1; a line a later kernel adds is zeroed too.
func TestConstantStatMasksEveryCount(t *testing.T) {
	real := "cpu  4705 356 584 3699176 23 23 0 0 0 0\n" +
		"cpu0 1393 280 255 1849592 11 21 0 0 0 0\n" +
		"cpu1 3312 76 329 1849584 12 2 0 0 0 0\n" +
		"intr 1462898 117 3 0 0\n" +
		"ctxt 1434231\n" +
		"btime 1764201600\n" +
		"processes 44215\n" +
		"procs_running 3\n" +
		"procs_blocked 1\n" +
		"softirq 843516 12 371253 3 0\n" +
		"newcounter 7 8\n"
	want := "cpu  0 0 0 0 0 0 0 0 0 0\n" +
		"cpu0 0 0 0 0 0 0 0 0 0 0\n" +
		"cpu1 0 0 0 0 0 0 0 0 0 0\n" +
		"intr 0 0 0 0 0\n" +
		"ctxt 0\n" +
		"btime 1764201600\n" +
		"processes 0\n" +
		"procs_running 1\n" +
		"procs_blocked 0\n" +
		"softirq 0 0 0 0 0\n" +
		"newcounter 0 0\n"
	if got := string(constantStat([]byte(real))); got != want {
		t.Errorf("constantStat:\n%s\nwant:\n%s", got, want)
	}
}

// TestFakeProcSealed: each sandbox gets the constant content from its start, and the
// memfd holding it cannot be written, even by the daemon.
func TestFakeProcSealed(t *testing.T) {
	fakes := makeFakeProcs()
	if len(fakes) == 0 {
		t.Skip("no /proc/stat, meminfo or cpuinfo here")
	}
	t.Cleanup(func() {
		for _, fp := range fakes {
			if fp.fd != nil {
				fp.fd.Close()
			}
		}
	})
	for _, fp := range fakes {
		if fp.fd == nil {
			t.Errorf("%s: no memfd", fp.path)
			continue
		}
		for range 2 {
			f, err := fp.open()
			if err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(f)
			f.Close()
			if err != nil || string(data) != string(fp.data) {
				t.Errorf("%s: read %d bytes (%v), want %d", fp.path, len(data), err, len(fp.data))
			}
		}
		if _, err := fp.fd.WriteAt([]byte("x"), 0); err == nil {
			t.Errorf("%s: the sealed memfd took a write", fp.path)
		}
		if fp.path == "/proc/stat" && !strings.Contains(string(fp.data), "\nprocesses 0\n") {
			t.Errorf("/proc/stat copy not synthesized: %s", fp.data)
		}
	}
}
