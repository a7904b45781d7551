package machine

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// The probe, at small sizes, measures every cost (each positive), and its text names each
// line and its JSON each number. Speed itself is never asserted.
func TestProbeMeasuresEveryCost(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 on PATH")
	}
	small := Sizes{Syscalls: 1000, Pages: 64, RoundTrips: 200, Launches: 2, PythonStarts: 1, Spin: 1_000_000}
	r, err := Probe(context.Background(), python, small)
	if err != nil {
		t.Fatal(err)
	}
	positive := map[string]float64{
		"syscall": r.SyscallUS, "page fault": r.PageFaultUS, "page fault, reused": r.PageReusedUS,
		"pipe round trip": r.PipeRoundTripUS, "pipe round trip CPU": r.PipeRoundTripCPUUS,
		"launch": r.LaunchMS, "launch CPU": r.LaunchCPUMS, "two launches CPU": r.LaunchParCPUMS, "two launches speed-up": r.LaunchParSpeedup,
		"python start": r.PythonStartMS, "python start CPU": r.PythonStartCPUMS,
		"CPU loop": r.SpinNS, "CPU loop speed-up": r.SpinSpeedup,
		"cores": float64(r.Cores),
	}
	for what, v := range positive {
		if !(v > 0) {
			t.Errorf("%s = %v", what, v)
		}
	}
	var text bytes.Buffer
	r.Print(&text)
	for _, want := range []string{"machine:", "load average", "page tables", "system call", "page fault", "pipe round trip", "process launch", "two launches", "python start", python, "CPU loop"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"page_tables", "syscall_cpu_us", "page_fault_cpu_us", "page_fault_reused_cpu_us", "pipe_round_trip_us", "launch_ms", "launch_two_speedup", "python_start_ms", "cpu_loop_two_speedup"} {
		if !strings.Contains(string(data), `"`+key+`"`) {
			t.Errorf("JSON lacks %q: %s", key, data)
		}
	}
}

// A python that cannot start is an error that names it, not a zero.
func TestProbeReportsAMissingPython(t *testing.T) {
	small := Sizes{Syscalls: 10, Pages: 4, RoundTrips: 2, Launches: 1, PythonStarts: 1, Spin: 10}
	_, err := Probe(context.Background(), "/nonexistent/python3", small)
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/python3") {
		t.Errorf("err = %v", err)
	}
}

// The page-table line tells the three kinds of host apart: on one that isolates its page
// tables without PCID every system call also costs the code after it a flushed TLB.
func TestDescribePageTables(t *testing.T) {
	for _, c := range []struct {
		meltdown string
		known    bool
		flags    string
		want     string
	}{
		{"Not affected", true, "fpu pcid sse", "not isolated (Meltdown: Not affected)"},
		{"Vulnerable", true, "fpu", "not isolated (Meltdown: Vulnerable)"},
		{"Mitigation: PTI", true, "fpu pcid invpcid", "isolated (Mitigation: PTI), with PCID"},
		{"Mitigation: PTI", true, "fpu invpcid_single", "isolated (Mitigation: PTI), no PCID: every kernel entry"},
		{"", false, "pcid", "unknown"},
	} {
		got := describePageTables(c.meltdown, c.known, strings.Fields(c.flags), "amd64")
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("describePageTables(%q, %v, %q) = %q, want it to start with %q", c.meltdown, c.known, c.flags, got, c.want)
		}
	}
	if got := describePageTables("Mitigation: PTI", true, nil, "arm64"); strings.Contains(got, "PCID") {
		t.Errorf("arm64: %q, which has no PCID flag to lack", got)
	}
}
