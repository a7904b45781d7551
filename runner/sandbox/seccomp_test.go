package sandbox

import (
	"encoding/binary"
	"runtime"
	"syscall"
	"testing"

	"golang.org/x/net/bpf"
)

// The filter's decisions, run in x/net/bpf's interpreter for both architectures with a
// table: what the kernel would do with each call. (channels_test.go runs it for real.)
func TestSeccompProgram(t *testing.T) {
	amd64 := seccompArch{audit: 0xc000003e, x32Bit: 0x40000000, numbers: map[string]uint32{
		"flock": 73, "fcntl": 72, "preadv2": 327, "unshare": 272, "clone": 56, "clone3": 435, "socket": 41, "keyctl": 250, "prctl": 157,
	}}
	prog, err := assembleSeccomp(amd64, seccompRules)
	if err != nil {
		t.Fatal(err)
	}
	vm, err := bpf.NewVM(prog)
	if err != nil {
		t.Fatal(err)
	}
	const (
		allow  = seccompRetAllow
		kill   = seccompRetKillProcess
		eperm  = seccompRetErrno | uint32(syscall.EPERM)
		enosys = seccompRetErrno | uint32(syscall.ENOSYS)
		eafno  = seccompRetErrno | uint32(syscall.EAFNOSUPPORT)
	)
	for _, c := range []struct {
		name string
		arch uint32
		nr   uint32
		args [6]uint64
		want uint32
	}{
		{"read", amd64.audit, 0, [6]uint64{}, allow},
		{"i386 call on x86-64", 0x40000003, 0, [6]uint64{}, kill},
		{"x32 flock", amd64.audit, 0x40000000 | 73, [6]uint64{}, enosys},
		{"flock", amd64.audit, 73, [6]uint64{}, eperm},
		{"keyctl", amd64.audit, 250, [6]uint64{}, eperm},
		{"fcntl F_GETFL", amd64.audit, 72, [6]uint64{3, 3}, allow},
		{"fcntl F_SETLK", amd64.audit, 72, [6]uint64{3, 6}, eperm},
		{"fcntl F_SETLK, upper half set", amd64.audit, 72, [6]uint64{3, 1<<32 | 6}, eperm},
		{"fcntl F_OFD_SETLKW", amd64.audit, 72, [6]uint64{3, 38}, eperm},
		{"fcntl F_NOTIFY", amd64.audit, 72, [6]uint64{3, 1026}, eperm},
		{"preadv2 plain", amd64.audit, 327, [6]uint64{3, 0, 1, 0, 0, 0}, allow},
		{"preadv2 RWF_HIPRI", amd64.audit, 327, [6]uint64{3, 0, 1, 0, 0, 1}, allow},
		{"preadv2 RWF_NOWAIT", amd64.audit, 327, [6]uint64{3, 0, 1, 0, 0, 8 | 1}, eperm},
		{"unshare CLONE_NEWNS", amd64.audit, 272, [6]uint64{0x20000}, allow},
		{"unshare CLONE_NEWUSER", amd64.audit, 272, [6]uint64{0x10000000}, eperm},
		{"clone thread", amd64.audit, 56, [6]uint64{0x3d0f00}, allow},
		{"clone CLONE_NEWUSER", amd64.audit, 56, [6]uint64{0x10000000 | 17}, eperm},
		{"clone3", amd64.audit, 435, [6]uint64{}, enosys},
		{"socket AF_UNIX", amd64.audit, 41, [6]uint64{1, 1}, allow},
		{"socket AF_INET6", amd64.audit, 41, [6]uint64{10, 1}, eafno},
		{"socket AF_INET", amd64.audit, 41, [6]uint64{2, 1}, eafno},
		{"socket AF_NETLINK", amd64.audit, 41, [6]uint64{16, 3}, allow},
		{"prctl PR_SET_NAME", amd64.audit, 157, [6]uint64{15}, allow},
		{"prctl PR_SCHED_CORE", amd64.audit, 157, [6]uint64{62, 1}, eperm},
		{"socket AF_VSOCK", amd64.audit, 41, [6]uint64{40, 1}, eafno},
		{"socket AF_VSOCK, upper half AF_UNIX", amd64.audit, 41, [6]uint64{1<<32 | 40, 1}, eafno},
	} {
		got, err := vm.Run(seccompData(c.nr, c.arch, c.args))
		if err != nil {
			t.Fatal(err)
		}
		if uint32(got) != c.want {
			t.Errorf("%s: %#x, want %#x", c.name, uint32(got), c.want)
		}
	}
	// The real tables compile, and every name of the policy is in the amd64 one.
	for name, a := range map[string]seccompArch{"native": nativeSeccomp} {
		if a.numbers == nil {
			continue
		}
		if _, err := assembleSeccomp(a, seccompRules); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if runtime.GOARCH == "amd64" {
		for _, r := range seccompRules {
			if _, ok := nativeSeccomp.numbers[r.name]; !ok {
				t.Errorf("%s: no x86-64 number", r.name)
			}
		}
	}
	if _, err := botSeccomp(); err != nil && err != errSeccompArch {
		t.Error(err)
	}
}

// seccompData lays out struct seccomp_data for the interpreter, which loads words in
// network byte order: each 32-bit word is stored big-endian where the filter (built for
// a little-endian machine) reads it.
func seccompData(nr, arch uint32, args [6]uint64) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[0:], nr)
	binary.BigEndian.PutUint32(b[4:], arch)
	for i, a := range args {
		binary.BigEndian.PutUint32(b[16+8*i:], uint32(a))
		binary.BigEndian.PutUint32(b[20+8*i:], uint32(a>>32))
	}
	return b
}
