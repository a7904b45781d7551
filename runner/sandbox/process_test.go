package sandbox

import (
	"context"
	"os"
	"runtime/debug"
	"testing"
)

// TestProcessOwnsItsSandbox: a Process holds its cgroup, bwrap's files and its uid until
// Release, which frees all of them at once (with the garbage collector kept from running:
// nothing else may be what frees them), keeps the CPU figure readable, and may be called
// again. A Process that was never started is released the same way.
func TestProcessOwnsItsSandbox(t *testing.T) {
	sb := NeedBwrap(t)
	if sb.cgroups == nil {
		t.Fatal("the bwrap sandbox runs without cgroups")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	fds := func() int {
		e, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(e)
	}
	dir := t.TempDir()
	before := fds()
	for _, start := range []bool{true, false} {
		p, err := sb.Command(context.Background(), ProcSpec{Dir: dir, Argv: []string{"/bin/sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"}})
		if err != nil {
			t.Fatal(err)
		}
		cg := p.CgroupDir()
		if cg == "" {
			t.Fatal("no cgroup")
		}
		if _, err := os.Stat(cg); err != nil {
			t.Fatalf("the cgroup is not there before Release: %v", err)
		}
		if n := fds(); n <= before {
			t.Errorf("started=%v: %d descriptors open with the process made, %d before: bwrap's files are not held", start, n, before)
		}
		if start {
			if err := p.Start(); err != nil {
				t.Fatal(err)
			}
			if err := p.Wait(); err != nil {
				t.Fatal(err)
			}
		}
		cpu, ok := p.CPU()
		p.Release()
		p.Release()
		if _, err := os.Stat(cg); !os.IsNotExist(err) {
			t.Errorf("started=%v: the cgroup stays after Release (%v)", start, err)
		}
		if n := fds(); n > before {
			t.Errorf("started=%v: %d descriptors open after Release, %d before", start, n, before)
		}
		if after, ok2 := p.CPU(); ok != ok2 || after < cpu {
			t.Errorf("started=%v: CPU after Release %v %v, before %v %v", start, after, ok2, cpu, ok)
		}
		if start && (!ok || cpu == 0) {
			t.Errorf("a shell that counted to 20,000 used %v of CPU (%v)", cpu, ok)
		}
		if sb.root && sb.uids != nil {
			if _, pooled := p.UID(); !pooled {
				t.Errorf("started=%v: a root daemon's process has no pooled uid", start)
			}
		}
	}
}
