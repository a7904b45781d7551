package sandbox

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// fakeProc is a file of /proc that runtimes parse but whose real content moves with what
// every process of the machine does: every sandbox sees instead a constant copy, made once
// when the sandbox type is created (NewBwrap), so that programs still find and parse the
// file but nothing in it moves. bwrap copies it into the sandbox from a descriptor
// (--ro-bind-data) and binds it read-only over the real file, mode 0444.
//
// The copy lives in a sealed memfd held by the daemon: it is never on a disk or in a
// directory, so no /tmp cleaner can remove it and no other process can change it (the
// seals forbid writes even through /proc/<daemon>/fd). Each sandbox gets a fresh
// read-only description of it (opened through /proc/self/fd), positioned at its start.
// Where a sealed memfd cannot be made, each sandbox gets a scratch file instead.
type fakeProc struct {
	path string   // the file of /proc it stands for, e.g. /proc/stat
	data []byte   // its constant content
	fd   *os.File // the sealed memfd holding data; nil where memfd was refused
}

// fakeProcs lists the synthesized files with how each is made from the host's file at
// the moment the sandbox type is created:
//
//   - /proc/stat: the real lines, every number zeroed (CPU times, intr, ctxt, processes,
//     softirq) but btime, and procs_running 1. The cpuN lines stay, one per CPU: glibc's
//     get_nprocs counts them where /sys is missing, as in the sandbox.
//   - /proc/meminfo: the real file of that moment. MemTotal is what the JVM and libuv read;
//     MemFree, MemAvailable and the rest no longer move with other sandboxes' allocations.
//   - /proc/cpuinfo: the real file of that moment. Its "cpu MHz" lines follow the CPUs'
//     current frequency on hosts that scale it, which a bot moves by spinning.
var fakeProcs = []struct {
	path  string
	synth func([]byte) []byte
}{
	{"/proc/stat", constantStat},
	{"/proc/meminfo", nil},
	{"/proc/cpuinfo", nil},
}

// makeFakeProcs reads the host's files of fakeProcs and makes their constant copies. A
// file missing or unreadable on the host is left out: the sandbox's /proc lacks it too.
func makeFakeProcs() []*fakeProc {
	var out []*fakeProc
	for _, s := range fakeProcs {
		data, err := os.ReadFile(s.path)
		if err != nil || len(data) == 0 {
			continue
		}
		if s.synth != nil {
			data = s.synth(data)
		}
		out = append(out, &fakeProc{path: s.path, data: data, fd: sealedMemfd("kothd"+strings.ReplaceAll(s.path, "/", "-"), data)})
	}
	return out
}

// sealedMemfd returns a memfd holding data that nothing can change any more, or nil when
// the kernel refuses one.
func sealedMemfd(name string, data []byte) *os.File {
	fd, err := memfdCreate(name, unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil
	}
	f := os.NewFile(uintptr(fd), name)
	seals := unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_WRITE | unix.F_SEAL_SEAL
	if n, err := f.Write(data); err != nil || n != len(data) {
		f.Close()
		return nil
	}
	if _, err := unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, seals); err != nil {
		f.Close()
		return nil
	}
	return f
}

// open returns a new read-only file of the constant content, positioned at its start, for
// one sandbox (bwrap reads it to its end and closes it).
func (p *fakeProc) open() (*os.File, error) {
	if p.fd != nil {
		if f, err := os.Open("/proc/self/fd/" + strconv.Itoa(int(p.fd.Fd()))); err == nil {
			return f, nil
		}
	}
	return scratchFile("kothd-proc-", p.data)
}

// constantStat is /proc/stat with nothing that moves: every number of every line zeroed,
// with the same count of fields, but btime (the boot time, fixed) and procs_running (1,
// the reader). A line a later kernel adds is zeroed the same way.
func constantStat(real []byte) []byte {
	var b strings.Builder
	for line := range strings.Lines(string(real)) {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch {
		case f[0] == "btime":
			b.WriteString(strings.Join(f, " "))
		case f[0] == "procs_running":
			b.WriteString("procs_running 1")
		default:
			b.WriteString(f[0])
			if f[0] == "cpu" {
				b.WriteString(" ") // the kernel writes "cpu  " for the total line
			}
			b.WriteString(strings.Repeat(" 0", len(f)-1))
		}
		b.WriteString("\n")
	}
	return []byte(b.String())
}
