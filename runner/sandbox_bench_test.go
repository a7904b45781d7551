package runner

import (
	"context"
	"slices"
	"testing"
	"time"
)

// The cost of the sandbox: launch-to-exit time of a trivial bot with and without bwrap.
// Besides ns/op (the mean), each benchmark reports the median launch in milliseconds.

func BenchmarkLaunchBwrap(b *testing.B) { benchSandboxLaunch(b, needBwrap(b)) }

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
			for b.Loop() {
				start := time.Now()
				cmd, err := sb.Command(context.Background(), ProcSpec{Dir: dir, Argv: c.argv})
				if err != nil {
					b.Fatal(err)
				}
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %s", err, out)
				}
				runs = append(runs, time.Since(start))
			}
			slices.Sort(runs)
			b.ReportMetric(float64(runs[len(runs)/2].Microseconds())/1000, "ms-median")
		})
	}
}
