package runner

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// The cost of the sandbox: launch-to-exit time of a trivial bot with and without bwrap.
// Besides ns/op (the mean), each benchmark reports the median launch in milliseconds and
// the CPU time the launched processes used.

func BenchmarkLaunchBwrap(b *testing.B) { benchSandboxLaunch(b, needBwrap(b)) }

// BenchmarkLaunchBwrapNoCgroups is the same sandbox with `cgroups: off`: the difference
// from BenchmarkLaunchBwrap is what a cgroup per sandbox costs a launch.
func BenchmarkLaunchBwrapNoCgroups(b *testing.B) {
	needBwrap(b)
	sb, err := NewSandboxCgroups("bwrap", CgroupsOff, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		b.Fatal(err)
	}
	benchSandboxLaunch(b, sb)
}

// BenchmarkCgroupLifecycle is a sandbox cgroup made, limited and removed, without a
// process: the daemon's side of the cost.
func BenchmarkCgroupLifecycle(b *testing.B) {
	tree := needBwrap(b).cgroups
	if tree == nil {
		b.Skip("no cgroups")
	}
	for b.Loop() {
		cg, err := tree.newSandbox(Limits{}.withDefaults())
		if err != nil {
			b.Fatal(err)
		}
		if err := cg.release(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLaunchNone(b *testing.B) { benchSandboxLaunch(b, Unsandboxed{}) }

func benchSandboxLaunch(b *testing.B, sb Sandbox) {
	for _, c := range []struct {
		name string
		argv []string
	}{
		{"true", []string{"/bin/true"}},
		{"python3", []string{"/usr/bin/python3", "-c", "pass"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			dir := b.TempDir()
			var runs []time.Duration
			var cpu time.Duration
			for b.Loop() {
				start := time.Now()
				cmd, err := sb.Command(context.Background(), ProcSpec{Dir: dir, Argv: c.argv})
				if err != nil {
					b.Fatal(err)
				}
				out, err := cmd.CombinedOutput()
				releaseSandbox(cmd)
				if err != nil {
					b.Fatalf("%v: %s", err, out)
				}
				runs = append(runs, time.Since(start))
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
			slices.Sort(runs)
			b.ReportMetric(float64(runs[len(runs)/2].Microseconds())/1000, "ms-median")
			// CPU time of the launched processes (bwrap, the tools, the bot; the shell
			// that joins the cgroup): what a launch costs the machine, whatever its load.
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(len(runs)), "cpu-ms/op")
		})
	}
}

// BenchmarkLaunchBwrapNoSeccomp is the sandbox without its seccomp filter: the difference
// from BenchmarkLaunchBwrap is what the filter costs a launch.
func BenchmarkLaunchBwrapNoSeccomp(b *testing.B) { benchSandboxLaunch(b, unfiltered(needBwrap(b))) }

// BenchmarkSeccompSyscalls is the filter's cost per system call a bot makes: a million
// getppid and a million 1-byte preads in one sandbox, with and without the filter; CPU
// nanoseconds per call as the process measured them (CLOCK_PROCESS_CPUTIME_ID).
func BenchmarkSeccompSyscalls(b *testing.B) {
	sb := needBwrap(b)
	bin := needChan(b)
	for _, c := range []struct {
		name string
		sb   *Bwrap
	}{{"filter", sb}, {"nofilter", unfiltered(sb)}} {
		b.Run(c.name, func(b *testing.B) {
			dir := b.TempDir()
			data, _ := os.ReadFile(bin)
			if err := os.WriteFile(filepath.Join(dir, "chan"), data, 0o755); err != nil {
				b.Fatal(err)
			}
			var getppid, pread []float64
			for b.Loop() {
				cmd, err := c.sb.Command(context.Background(), ProcSpec{Dir: dir, Argv: []string{"./chan", "loop", "x", "1000000"}})
				if err != nil {
					b.Fatal(err)
				}
				out, err := cmd.Output()
				releaseSandbox(cmd)
				var g, p float64
				if _, serr := fmt.Sscanf(string(out), "%g %g", &g, &p); err != nil || serr != nil {
					b.Fatalf("%v %v: %s", err, serr, out)
				}
				getppid, pread = append(getppid, g), append(pread, p)
			}
			slices.Sort(getppid)
			slices.Sort(pread)
			b.ReportMetric(getppid[len(getppid)/2], "getppid-cpu-ns")
			b.ReportMetric(pread[len(pread)/2], "pread-cpu-ns")
		})
	}
}
