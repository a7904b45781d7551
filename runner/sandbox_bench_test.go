package runner

import (
	"context"
	"io"
	"log/slog"
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
		cg, err := tree.newSandbox(Limits{}.withDefaults(), nil)
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
