package machine

import (
	"fmt"
	"io"
	"unicode/utf8"
)

// Print writes the report as a block of text: one line per cost, its value, what it
// means for the bots' protocols and what a usual host shows (docs/benchmarks.md, "What the
// machine costs", says more).
func (r *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "machine: %s, %d cores, load average %s\n", r.CPUModel, r.Cores, r.LoadAverage)
	if r.busy() {
		fmt.Fprintf(w, "  busy: more runnable processes than cores; wall times and speed-ups below are not the machine's, CPU costs less so\n")
	}
	line := func(name, value, meaning string) {
		// Pad by characters, not bytes: µ and × take two bytes each.
		pad := max(1, 38-utf8.RuneCountInString(value))
		fmt.Fprintf(w, "  %-16s %s%*s%s\n", name, value, pad, "", meaning)
	}
	fmt.Fprintf(w, "  %-16s %s\n", "page tables", r.PageTables)
	line("system call", fmt.Sprintf("%.2f µs CPU", r.SyscallUS),
		"getppid; every pipe read or write, poll and wait pays it (a usual host: ~0.1 µs)")
	line("page fault", fmt.Sprintf("%.2f µs CPU, reused %.2f µs", r.PageFaultUS, r.PageReusedUS),
		"first touch of a fresh page, then of memory just freed; a process start takes hundreds (usual: 0.1–0.25 µs both)")
	line("pipe round trip", fmt.Sprintf("%.1f µs, %.1f µs CPU", r.PipeRoundTripUS, r.PipeRoundTripCPUUS),
		"a byte to another process and back: the floor of a pyclass batch (usual: ~5 µs)")
	line("process launch", fmt.Sprintf("%.2f ms, %.2f ms CPU", r.LaunchMS, r.LaunchCPUMS),
		"/bin/true, one at a time: the floor of an argv or dirfiles decision, before its sandbox (usual: ~0.5 ms)")
	line("two launches", fmt.Sprintf("%.2f× one's rate, %.2f ms CPU each", r.LaunchParSpeedup, r.LaunchParCPUMS),
		"two streams of launches at once: what side-by-side tournaments can gain (usual: ~1.9×)")
	line("python start", fmt.Sprintf("%.1f ms, %.1f ms CPU", r.PythonStartMS, r.PythonStartCPUMS),
		r.Python+" -c pass: once per pyclass bot and run, once per decision of a Python argv or dirfiles bot (usual: 10–15 ms)")
	line("CPU loop", fmt.Sprintf("%.2f ns CPU/step, %.2f× on two cores", r.SpinNS, r.SpinSpeedup),
		"no system call, no fault: the cores themselves (usual: ~2×; less: a busy or overcommitted host)")
}

// busy says whether the load average (over a minute) was above the number of cores.
func (r *Report) busy() bool {
	var load float64
	_, err := fmt.Sscan(r.LoadAverage, &load)
	return err == nil && load > float64(r.Cores)
}
