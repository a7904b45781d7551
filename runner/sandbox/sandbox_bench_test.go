package sandbox

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// The cost of the sandbox: launch-to-exit time of a trivial bot with and without bwrap.
// Besides ns/op (the mean), each benchmark reports the median launch in milliseconds and
// the CPU time the launched processes used.

func BenchmarkLaunchBwrap(b *testing.B) { benchSandboxLaunch(b, NeedBwrap(b)) }

// BenchmarkLaunchBwrapNoCgroups is the same sandbox with `cgroups: off`: the difference
// from BenchmarkLaunchBwrap is what a cgroup per sandbox costs a launch.
func BenchmarkLaunchBwrapNoCgroups(b *testing.B) {
	NeedBwrap(b)
	sb, err := NewSandboxCgroups("bwrap", CgroupsOff, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		b.Fatal(err)
	}
	benchSandboxLaunch(b, sb)
}

// BenchmarkCgroupLifecycle is a sandbox cgroup made, limited and removed, without a
// process: the daemon's side of the cost.
func BenchmarkCgroupLifecycle(b *testing.B) {
	tree := NeedBwrap(b).cgroups
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
			busy0 := machineBusy(b)
			var ru0 syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
			for b.Loop() {
				start := time.Now()
				proc, err := sb.Command(context.Background(), ProcSpec{Dir: dir, Argv: c.argv})
				if err != nil {
					b.Fatal(err)
				}
				cmd := proc.Cmd
				out, err := cmd.CombinedOutput()
				proc.Release()
				if err != nil {
					b.Fatalf("%v: %s", err, out)
				}
				runs = append(runs, time.Since(start))
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
			slices.Sort(runs)
			b.ReportMetric(float64(runs[len(runs)/2].Microseconds())/1000, "ms-median")
			// CPU time of the launched processes (bwrap, the tools, the bot; the shell
			// that joins the cgroup) as wait4 reports it, which misses most of it: a
			// profile of these launches put two thirds of the machine's busy time in
			// bwrap's processes, where wait4 reported a sixth. machine-cpu-ms/op is the
			// figure.
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(len(runs)), "cpu-ms/op")
			// Every CPU's busy time over the loop, per launch: the launched processes',
			// the daemon's side (this process) and what the kernel does for them
			// elsewhere (docs/benchmarks.md has the figures), but also whatever else the
			// machine runs meanwhile: a figure of an idle machine only.
			b.ReportMetric(float64((machineBusy(b)-busy0).Microseconds())/1000/float64(len(runs)), "machine-cpu-ms/op")
			// The daemon's side: this process's own CPU (its cgroup, files, the start).
			var ru1 syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
			self := time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
			b.ReportMetric(float64(self.Microseconds())/1000/float64(len(runs)), "daemon-cpu-ms/op")
		})
	}
}

// machineBusy is the time every CPU of the machine has been busy since boot (/proc/stat:
// user, nice, system, irq and softirq).
func machineBusy(b *testing.B) time.Duration {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		b.Fatal(err)
	}
	var name string
	var f [7]int64
	if _, err := fmt.Sscan(string(data), &name, &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6]); err != nil || name != "cpu" {
		b.Fatalf("/proc/stat: %v", err)
	}
	ticks := f[0] + f[1] + f[2] + f[5] + f[6]       // not idle (3) nor iowait (4)
	return time.Duration(ticks) * time.Second / 100 // USER_HZ
}

// BenchmarkDecisionDisk is one decision through a launcher (what Bank Heist and Mafia pay
// per decision) of a bot that only answers, in a directory of 20 small files: "plain"
// checks the allowance afterwards by walking the directory, "bounded" is the directory
// on its own tmpfs (botfs.go), checked with one statfs. "start" is a launcher's start
// (its sandbox; through nsenter when bounded), paid once per bot per run.
func BenchmarkDecisionDisk(b *testing.B) {
	sb := NeedBwrap(b)
	src := b.TempDir()
	for i := range 20 {
		if err := os.WriteFile(filepath.Join(src, fmt.Sprintf("state%d", i)), make([]byte, 3000), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	lim := Limits{MemoryMB: 256, Procs: 16, FileSizeMB: 16, DirMB: 16}
	for _, bounded := range []bool{false, true} {
		name := "plain"
		if bounded {
			name = "bounded"
		}
		dst := filepath.Join(b.TempDir(), "bot")
		var dir string
		if bounded {
			d, ok, release, err := BotDir(sb, dst, src, lim)
			if err != nil || !ok {
				b.Fatal(ok, err)
			}
			defer release()
			dir = d
		} else {
			if err := CopyBotDir(dst, src); err != nil {
				b.Fatal(err)
			}
			dir = dst
		}
		spec := ProcSpec{Dir: dir, Argv: []string{"/bin/sh", "-c", "echo 1"}, Limits: lim}
		b.Run(name+"/decision", func(b *testing.B) {
			l := NewLauncher(sb, spec)
			defer l.Close()
			if _, f := l.Run(context.Background(), nil, time.Minute); f != nil {
				b.Fatal(f)
			}
			// CPU time, which a loaded machine does not inflate as it does the wall
			// clock: the daemon's (this process) and the sandbox's (its cgroup).
			sandboxCPU := func() time.Duration { return sandboxUse(l.idle[0].p.Proc).cpu }
			cpu0, self0 := sandboxCPU(), selfCPU()
			var runs []time.Duration
			for b.Loop() {
				start := time.Now()
				if _, f := l.Run(context.Background(), nil, time.Minute); f != nil {
					b.Fatal(f)
				}
				runs = append(runs, time.Since(start))
			}
			slices.Sort(runs)
			b.ReportMetric(float64(runs[len(runs)/2].Microseconds())/1000, "ms-median")
			b.ReportMetric(float64((sandboxCPU()-cpu0).Microseconds())/1000/float64(len(runs)), "sandbox-cpu-ms/op")
			b.ReportMetric(float64((selfCPU()-self0).Microseconds())/1000/float64(len(runs)), "daemon-cpu-ms/op")
		})
		b.Run(name+"/check", func(b *testing.B) {
			for b.Loop() {
				if f := overDisk(spec, nil); f != nil {
					b.Fatal(f)
				}
			}
		})
		b.Run(name+"/start", func(b *testing.B) {
			var runs []time.Duration
			for b.Loop() {
				start := time.Now()
				l := NewLauncher(sb, spec)
				if _, f := l.Run(context.Background(), nil, time.Minute); f != nil {
					b.Fatal(f)
				}
				l.Close()
				runs = append(runs, time.Since(start))
			}
			slices.Sort(runs)
			b.ReportMetric(float64(runs[len(runs)/2].Microseconds())/1000, "ms-median")
		})
	}
}

// selfCPU is the CPU time this process has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkBotDir is the making and removal of one bot's run copy (20 files of 3 KB):
// "plain" copies onto the host's disk, "bounded" mounts a tmpfs through the holder and
// copies into it. Paid once per bot per run (per tournament unit for Bank Heist).
func BenchmarkBotDir(b *testing.B) {
	sb := NeedBwrap(b)
	src := b.TempDir()
	for i := range 20 {
		if err := os.WriteFile(filepath.Join(src, fmt.Sprintf("state%d", i)), make([]byte, 3000), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		sb   Sandbox
	}{{"plain", Unsandboxed{}}, {"bounded", sb}} {
		b.Run(c.name, func(b *testing.B) {
			base := b.TempDir()
			n := 0
			for b.Loop() {
				n++
				dst := filepath.Join(base, strconv.Itoa(n))
				_, _, release, err := BotDir(c.sb, dst, src, Limits{DirMB: 16})
				if err != nil {
					b.Fatal(err)
				}
				release()
				if err := os.RemoveAll(dst); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLaunchBwrapNoSeccomp is the sandbox without its seccomp filter: the difference
// from BenchmarkLaunchBwrap is what the filter costs a launch.
func BenchmarkLaunchBwrapNoSeccomp(b *testing.B) { benchSandboxLaunch(b, unfiltered(NeedBwrap(b))) }

// BenchmarkSeccompSyscalls is the filter's cost per system call a bot makes: a million
// getppid and a million 1-byte preads in one sandbox, with and without the filter; CPU
// nanoseconds per call as the process measured them (CLOCK_PROCESS_CPUTIME_ID).
func BenchmarkSeccompSyscalls(b *testing.B) {
	sb := NeedBwrap(b)
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
				proc, err := c.sb.Command(context.Background(), ProcSpec{Dir: dir, Argv: []string{"./chan", "loop", "x", "1000000"}})
				if err != nil {
					b.Fatal(err)
				}
				cmd := proc.Cmd
				out, err := cmd.Output()
				proc.Release()
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
