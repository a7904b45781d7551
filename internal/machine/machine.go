// Package machine measures what the host charges for the operations that isolating bots is
// made of: a system call, a page fault, a pipe round trip to another process, a process
// launch (alone and two at once), a Python start, and plain computation on one and on two
// cores. kothd bench --machine prints them, so that a bench's ratios can be read against
// the machine they were measured on: on some virtual machines a system call or a page
// fault costs ten to a hundred times what it costs on a usual host, and the protocols'
// speed follows (docs/benchmarks.md, "What the machine costs").
//
// Every cost is measured as CPU time (getrusage, the thread's CPU clock) where it can be,
// so that it holds better on a busy machine; the speed-ups of two streams over one are wall-time ratios and need a
// quiet machine.
package machine

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// Sizes are how many times each operation is repeated. Default takes a few seconds on a
// slow machine; tests use small ones.
type Sizes struct {
	Syscalls     int // getppid calls
	Pages        int // anonymous pages touched for the first time
	RoundTrips   int // one byte to /bin/cat and back
	Launches     int // /bin/true launches per stream (one stream, then two at once)
	PythonStarts int // `python -c pass`, one after another
	Spin         int // iterations of the CPU loop per core
}

// Default is what kothd bench --machine uses: about 3 s on a VM where a launch costs 4 ms.
var Default = Sizes{Syscalls: 200_000, Pages: 8192, RoundTrips: 20_000, Launches: 100, PythonStarts: 10, Spin: 100_000_000}

// Report is what the probe measured. Times per operation are in microseconds (µs) or
// milliseconds (ms), as the field names say; "CPU" is user+sys time from getrusage.
type Report struct {
	CPUModel    string `json:"cpu_model"`    // /proc/cpuinfo's model name
	Cores       int    `json:"cores"`        // CPUs this process may run on
	LoadAverage string `json:"load_average"` // /proc/loadavg as the probe ended
	PageTables  string `json:"page_tables"`  // page-table isolation and PCID (pageTables)

	SyscallUS    float64 `json:"syscall_cpu_us"`           // CPU per getppid
	PageFaultUS  float64 `json:"page_fault_cpu_us"`        // CPU per page of a fresh anonymous mapping, first touch
	PageReusedUS float64 `json:"page_fault_reused_cpu_us"` // the same, right after freeing as many pages

	PipeRoundTripUS    float64 `json:"pipe_round_trip_us"`     // wall time per round trip
	PipeRoundTripCPUUS float64 `json:"pipe_round_trip_cpu_us"` // CPU of both processes per round trip

	LaunchMS         float64 `json:"launch_ms"`          // wall time per /bin/true, one after another
	LaunchCPUMS      float64 `json:"launch_cpu_ms"`      // CPU per launch (kothd's and the child's)
	LaunchParCPUMS   float64 `json:"launch_two_cpu_ms"`  // CPU per launch with two streams at once
	LaunchParSpeedup float64 `json:"launch_two_speedup"` // launches/s of two streams ÷ one stream's

	Python           string  `json:"python"`              // the interpreter started
	PythonStartMS    float64 `json:"python_start_ms"`     // wall time per `python -c pass`
	PythonStartCPUMS float64 `json:"python_start_cpu_ms"` // CPU per start

	SpinNS      float64 `json:"cpu_loop_ns"`          // CPU per step of the loop
	SpinSpeedup float64 `json:"cpu_loop_two_speedup"` // steps/s on two cores ÷ on one (wall time)

	Sizes Sizes `json:"sizes"`
}

// Probe measures the machine, running python for the Python start. It takes a few seconds
// with Default sizes and needs no privileges: /bin/cat and /bin/true (found on PATH) are
// the other processes.
func Probe(ctx context.Context, python string, n Sizes) (*Report, error) {
	r := &Report{CPUModel: cpuModel(), Cores: runtime.NumCPU(), PageTables: pageTables(), Python: python, Sizes: n}
	r.SyscallUS = syscallCost(n.Syscalls)
	var err error
	if r.PageFaultUS, r.PageReusedUS, err = pageFaultCost(n.Pages); err != nil {
		return nil, fmt.Errorf("page faults: %w", err)
	}
	if r.PipeRoundTripUS, r.PipeRoundTripCPUUS, err = pipeCost(ctx, n.RoundTrips); err != nil {
		return nil, fmt.Errorf("pipe round trips: %w", err)
	}
	if err := launchCost(ctx, r, n.Launches); err != nil {
		return nil, fmt.Errorf("process launches: %w", err)
	}
	wall, cpu, err := starts(ctx, n.PythonStarts, python, "-c", "pass")
	if err != nil {
		return nil, fmt.Errorf("python start: %w", err)
	}
	r.PythonStartMS, r.PythonStartCPUMS = ms(wall, n.PythonStarts), ms(cpu, n.PythonStarts)
	r.SpinNS, r.SpinSpeedup = spinCost(n.Spin)
	r.LoadAverage = loadAverage()
	return r, nil
}

// syscallCost is the CPU per getppid, the cheapest system call: what entering and leaving
// the kernel costs (with page-table isolation and no PCID, a TLB flush each way).
func syscallCost(n int) float64 {
	runtime.LockOSThread() // the thread's CPU time then counts this loop and nothing else
	defer runtime.UnlockOSThread()
	t0 := threadCPU()
	for range n {
		syscall.RawSyscall(syscall.SYS_GETPPID, 0, 0, 0)
	}
	return us(threadCPU()-t0, n)
}

// pageFaultCost is the CPU per page of an anonymous mapping touched for the first time,
// twice: a fresh mapping, then another one right after the first was unmapped. On a usual
// host both cost the same (a page fault and a zeroed page). On a VM whose hypervisor
// takes back the memory the guest frees (a balloon, free page reporting), the first
// touch of memory the guest has not used lately also makes the hypervisor back it, which
// can cost tens of times more; the second mapping mostly gets the pages just freed.
// Each cost is per page touched, not per fault the kernel counts: some kernels map many
// pages per fault (minflt was 16 for 8,192 pages on one VM).
func pageFaultCost(pages int) (fresh, reused float64, err error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if fresh, err = touchPages(pages); err != nil {
		return 0, 0, err
	}
	reused, err = touchPages(pages)
	return fresh, reused, err
}

// touchPages maps pages of anonymous memory, writes a byte to each, unmaps them and
// returns the CPU per page of the writes (the caller locks its thread).
func touchPages(pages int) (float64, error) {
	size := pages * os.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return 0, err
	}
	defer syscall.Munmap(mem)
	// A transparent huge page would serve 512 pages at the cost of one; a process start
	// gets small pages, so ask for those (an error only means THP is not there).
	_ = syscall.Madvise(mem, 14) // MADV_NOHUGEPAGE
	t0 := threadCPU()
	for i := 0; i < size; i += os.Getpagesize() {
		mem[i] = 1
	}
	return us(threadCPU()-t0, pages), nil
}

// pipeCost is one byte to another process (/bin/cat) and back through two pipes, the way
// a pyclass batch goes to a harness and its replies come back: wall time per round trip,
// and the CPU of both processes (cat's own start is counted too: under 1 % at the
// default size).
func pipeCost(ctx context.Context, n int) (wall, cpu float64, err error) {
	cat, err := exec.LookPath("cat")
	if err != nil {
		return 0, 0, err
	}
	// Blocking pipes read and written with plain system calls: what the machine charges,
	// not Go's poller.
	var down, up [2]int
	if err := syscall.Pipe2(down[:], syscall.O_CLOEXEC); err != nil {
		return 0, 0, err
	}
	if err := syscall.Pipe2(up[:], syscall.O_CLOEXEC); err != nil {
		syscall.Close(down[0])
		syscall.Close(down[1])
		return 0, 0, err
	}
	in, out := os.NewFile(uintptr(down[0]), "down"), os.NewFile(uintptr(up[1]), "up")
	cmd := exec.CommandContext(ctx, cat)
	cmd.Stdin, cmd.Stdout = in, out
	err = cmd.Start()
	in.Close() // the child has its copies
	out.Close()
	defer syscall.Close(up[0])
	if err != nil {
		syscall.Close(down[1])
		return 0, 0, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	buf := []byte{'x'}
	roundTrip := func() error {
		if _, err := syscall.Write(down[1], buf); err != nil {
			return err
		}
		if k, err := syscall.Read(up[0], buf); err != nil || k != 1 {
			return fmt.Errorf("cat answered %d bytes: %v", k, err)
		}
		return nil
	}
	err = roundTrip() // cat has started and answers
	t0, start := threadCPU(), time.Now()
	for i := 0; i < n && err == nil; i++ {
		err = roundTrip()
	}
	elapsed, self := time.Since(start), threadCPU()-t0
	syscall.Close(down[1]) // cat sees the end of its input and exits
	if werr := cmd.Wait(); err == nil && werr != nil {
		err = fmt.Errorf("%s: %w", cat, werr)
	}
	if err != nil {
		return 0, 0, err
	}
	child := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return us(elapsed, n), us(self+child, n), nil
}

// launchCost starts /bin/true n times one after another, then n times in each of two
// streams at once. Every argv decision (Bank Heist) and every dirfiles run (Mafia) is such
// a launch, with a sandbox on top; on a usual host two streams launch nearly twice as fast
// as one.
//
// Both streams are goroutines of this process, as kothd's own launches are. Go holds
// syscall.ForkLock from the fork until the child has called exec (it is a vfork), so that
// small part of a launch is serial whatever the machine; the exec, the child's start and
// its exit, most of the cost, are not.
func launchCost(ctx context.Context, r *Report, n int) error {
	tru, err := exec.LookPath("true")
	if err != nil {
		return err
	}
	wall, cpu, err := starts(ctx, n, tru)
	if err != nil {
		return err
	}
	r.LaunchMS, r.LaunchCPUMS = ms(wall, n), ms(cpu, n)
	self0, child0 := cpuNow(syscall.RUSAGE_SELF), cpuNow(syscall.RUSAGE_CHILDREN)
	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Go(func() { _, _, errs[i] = starts(ctx, n, tru) })
	}
	wg.Wait()
	both := time.Since(start)
	if errs[0] != nil || errs[1] != nil {
		return fmt.Errorf("two at once: %v %v", errs[0], errs[1])
	}
	cpu2 := cpuNow(syscall.RUSAGE_SELF) - self0 + cpuNow(syscall.RUSAGE_CHILDREN) - child0
	r.LaunchParCPUMS = ms(cpu2, 2*n)
	r.LaunchParSpeedup = 2 * wall.Seconds() / both.Seconds()
	return nil
}

// starts runs argv n times, one after another, and returns the wall time and the CPU
// spent: kothd's (starting and waiting) and the children's.
func starts(ctx context.Context, n int, argv ...string) (wall, cpu time.Duration, err error) {
	self0, child0 := cpuNow(syscall.RUSAGE_SELF), cpuNow(syscall.RUSAGE_CHILDREN)
	start := time.Now()
	for range n {
		if err := exec.CommandContext(ctx, argv[0], argv[1:]...).Run(); err != nil {
			return 0, 0, fmt.Errorf("%s: %w", strings.Join(argv, " "), err)
		}
	}
	wall = time.Since(start)
	return wall, cpuNow(syscall.RUSAGE_SELF) - self0 + cpuNow(syscall.RUSAGE_CHILDREN) - child0, nil
}

// spinCost runs a loop that neither calls the kernel nor touches new memory, on one core
// and then on two at once: the CPU per step says how fast a core computes, the wall-time
// speed-up whether the second core is really there (a busy host or an overcommitted VM
// shows less than 2×).
func spinCost(n int) (nsPerStep, speedup float64) {
	one, cpu := spinOn(1, n)
	nsPerStep = float64(cpu.Nanoseconds()) / float64(max(n, 1))
	if runtime.NumCPU() < 2 {
		return nsPerStep, 1
	}
	two, _ := spinOn(2, n)
	return nsPerStep, 2 * one.Seconds() / two.Seconds()
}

// spinOn runs the loop n times in each of k threads at once and returns the wall time and
// the threads' CPU time.
func spinOn(k, n int) (wall, cpu time.Duration) {
	start := time.Now()
	var wg sync.WaitGroup
	var total atomic.Int64
	for range k {
		wg.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			t0 := threadCPU()
			x := uint64(1)
			for range n {
				x = x*6364136223846793005 + 1442695040888963407 // a step of an LCG
			}
			sink.Store(x) // the compiler cannot drop a loop whose result is used
			total.Add(int64(threadCPU() - t0))
		})
	}
	wg.Wait()
	return time.Since(start), time.Duration(total.Load())
}

// sink keeps the CPU loop's result.
var sink atomic.Uint64

// threadCPU is the CPU time of the calling thread (the caller locks it to its thread):
// clock_gettime(CLOCK_THREAD_CPUTIME_ID), which counts to the nanosecond, where
// getrusage(RUSAGE_THREAD) counts the running thread's time only up to its last tick.
func threadCPU() time.Duration {
	const clockThreadCPUTime = 3 // CLOCK_THREAD_CPUTIME_ID, which package syscall does not name
	var ts syscall.Timespec
	if _, _, e := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}

func cpuNow(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return cpuOf(&ru)
}

func cpuOf(ru *syscall.Rusage) time.Duration {
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// us and ms are d per operation in microseconds and milliseconds.
func us(d time.Duration, n int) float64 { return float64(d.Nanoseconds()) / 1e3 / float64(max(n, 1)) }
func ms(d time.Duration, n int) float64 { return float64(d.Nanoseconds()) / 1e6 / float64(max(n, 1)) }

// cpuModel is the first "model name" of /proc/cpuinfo ("unknown" without one).
func cpuModel() string { return cpuinfo("model name") }

// cpuinfo is the first value of key in /proc/cpuinfo ("unknown" without one).
func cpuinfo(key string) string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// pageTables says whether the kernel isolates its page tables from user space (the
// Meltdown mitigation) and, if so, whether the CPU has PCID. Isolated without PCID, every
// entry into the kernel and every return flushes the TLB: each system call then also makes
// the code after it slower, which the system call line alone does not show.
func pageTables() string {
	data, err := os.ReadFile("/sys/devices/system/cpu/vulnerabilities/meltdown")
	return describePageTables(strings.TrimSpace(string(data)), err == nil, strings.Fields(cpuinfo("flags")), runtime.GOARCH)
}

// describePageTables is pageTables' verdict from the kernel's Meltdown status (known says
// whether it could be read) and the CPU's flags.
func describePageTables(meltdown string, known bool, flags []string, arch string) string {
	switch {
	case !known:
		return "unknown (no /sys/devices/system/cpu/vulnerabilities/meltdown)"
	case !strings.Contains(meltdown, "PTI"):
		return "not isolated (Meltdown: " + meltdown + "): no TLB flush at kernel entry"
	case arch != "amd64" && arch != "386":
		// arm64's KPTI tags its entries with ASIDs: PCID is an x86 flag.
		return "isolated (" + meltdown + ")"
	case slices.Contains(flags, "pcid"):
		return "isolated (" + meltdown + "), with PCID: the TLB survives kernel entries"
	default:
		return "isolated (" + meltdown + "), no PCID: every kernel entry and return flushes the TLB"
	}
}

// loadAverage is /proc/loadavg's first three fields: a probe on a busy machine says so.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(data)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}
