package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The helper that puts a sandbox under the sysinfo filter (sysinfo.go says why it exists).
// The sandbox's command is
//
//	/proc/self/fd/<exe> notifyExecArg <sock> <exe> <n> <cgroup.procs>×n <command...>
//
// the daemon's own binary (in tests, the test binary), passed as descriptor <exe>, which
// this package's init turns into the helper before anything else of the program runs: it
// installs the filter with a listener, sends the listener over the Unix socket <sock> to
// the daemon, closes all three, joins the sandbox's cgroup (writes its pid to each of the
// n cgroup.procs files) and executes the command, bwrap (or nsenter, then bwrap). It joins
// last rather than being started inside (CLONE_INTO_CGROUP, or cgroup v1's joining
// shell) because the Go runtime runs several threads, which the cgroup's task limit
// would count: moving a process in is not held to the limit, and execve leaves one thread. It runs outside the sandbox, on the
// host, before bwrap: nothing of the bot has run yet, and nothing of the daemon's binary
// need be bound into the sandbox. The binary goes by descriptor, not by name: on a host
// with cgroup v1 the command is started by a shell that joins the cgroup first (so
// /proc/self/exe would be the shell), and an upgrade may have replaced the file since
// the daemon started (the descriptor, opened through the daemon's /proc/self/exe, is
// still the running binary). It costs one start of the binary per sandbox (see
// docs/trust.md for the figures); a one-shot bot's decisions are served by a launcher
// inside one sandbox and pay it once.

// notifyExecArg, as the first argument of the daemon's binary, asks for the helper.
const notifyExecArg = "kothd-sandbox-sysinfo-exec"

// notifyExecStatus is the helper's exit status when it fails: bwrap never ran, so its
// status file has no exit code and the start is the host's fault (sandboxFailed).
const notifyExecStatus = 125

func init() {
	if len(os.Args) > 5 && os.Args[1] == notifyExecArg {
		notifyExec(os.Args[2], os.Args[3], os.Args[4:])
	}
}

// notifyExec is the helper; it does not return.
func notifyExec(sockArg, exeArg string, rest []string) {
	fail := func(err error) {
		fmt.Fprintf(os.Stderr, "kothd sandbox helper: %v\n", err)
		os.Exit(notifyExecStatus)
	}
	// Package initialization runs on the main thread, locked to it; a seccomp filter is
	// the installing thread's, and execve keeps that thread's.
	runtime.LockOSThread()
	sock, err := strconv.Atoi(sockArg)
	if err != nil {
		fail(fmt.Errorf("socket %q: %w", sockArg, err))
	}
	n, err := strconv.Atoi(rest[0])
	if err != nil || n < 0 || len(rest) < n+2 {
		fail(fmt.Errorf("cgroup count %q", rest[0]))
	}
	cgroups, argv := rest[1:1+n], rest[1+n:]
	if exe, err := strconv.Atoi(exeArg); err == nil {
		unix.Close(exe)
	}
	prog, err := notifySeccomp()
	if err != nil {
		fail(err)
	}
	listener, err := installNotifyFilter(prog)
	if err != nil {
		fail(err)
	}
	if err := unix.Sendmsg(sock, []byte{0}, unix.UnixRights(listener), nil, 0); err != nil {
		fail(fmt.Errorf("send the listener: %w", err))
	}
	unix.Close(listener)
	unix.Close(sock)
	pid := []byte(strconv.Itoa(os.Getpid()))
	for _, procs := range cgroups {
		if err := rawWriteFile(procs, pid); err != nil {
			fail(fmt.Errorf("join cgroup %s: %w", procs, err))
		}
	}
	path := argv[0]
	if !strings.Contains(path, "/") {
		if path, err = exec.LookPath(path); err != nil {
			fail(err)
		}
	}
	fail(syscall.Exec(path, argv, os.Environ()))
}

// rawWriteFile writes data to an existing file with raw system calls: once in the cgroup,
// past its task limit, the helper must not have the runtime start a thread (a blocking
// system call may).
func rawWriteFile(path string, data []byte) error {
	p, err := unix.BytePtrFromString(path)
	if err != nil {
		return err
	}
	cwd := unix.AT_FDCWD
	fd, _, e := unix.RawSyscall6(unix.SYS_OPENAT, uintptr(cwd), uintptr(unsafe.Pointer(p)), unix.O_WRONLY|unix.O_CLOEXEC, 0, 0, 0)
	if e != 0 {
		return e
	}
	defer unix.RawSyscall(unix.SYS_CLOSE, fd, 0, 0)
	k, _, e := unix.RawSyscall(unix.SYS_WRITE, fd, uintptr(unsafe.Pointer(&data[0])), uintptr(len(data)))
	runtime.KeepAlive(data)
	if e != 0 {
		return e
	}
	if int(k) != len(data) {
		return fmt.Errorf("short write")
	}
	return nil
}

// installNotifyFilter installs prog on the calling thread with a listener, and returns
// the listener (close-on-exec). Without CAP_SYS_ADMIN the kernel wants no_new_privs set
// first (bwrap sets it anyway before the bot runs; a root daemon has the capability and
// leaves it to bwrap and setpriv).
func installNotifyFilter(prog []byte) (int, error) {
	fprog := unix.SockFprog{Len: uint16(len(prog) / 8), Filter: (*unix.SockFilter)(unsafe.Pointer(&prog[0]))}
	for attempt := 0; ; attempt++ {
		fd, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER, uintptr(unsafe.Pointer(&fprog)))
		runtime.KeepAlive(prog)
		if e == 0 {
			return int(fd), nil
		}
		if e != unix.EACCES || attempt > 0 {
			return -1, fmt.Errorf("install the sysinfo filter: %w", e)
		}
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			return -1, fmt.Errorf("no_new_privs: %w", err)
		}
	}
}

// notifyFiles makes what one sandbox's helper needs: the socket pair between the daemon
// and the helper (the daemon's end nonblocking, for the poller) and the daemon's binary
// opened for the helper's start. The helper closes its two before it executes bwrap.
func notifyFiles() (daemon, helper, exe *os.File, err error) {
	exe, err = os.Open(selfExe)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("the daemon's binary: %w", err)
	}
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err == nil {
		if err = unix.SetNonblock(pair[0], true); err != nil {
			unix.Close(pair[0])
			unix.Close(pair[1])
		}
	}
	if err != nil {
		exe.Close()
		return nil, nil, nil, fmt.Errorf("sysinfo socket: %w", err)
	}
	return os.NewFile(uintptr(pair[0]), "kothd-sysinfo-daemon"), os.NewFile(uintptr(pair[1]), "kothd-sysinfo-helper"), exe, nil
}

// selfExe is the daemon's own binary: still the binary that runs, even once an upgrade
// replaced the file.
const selfExe = "/proc/self/exe"

// sysinfoUsable says why sandboxes cannot be put under the sysinfo filter here, or nil.
func (b *Bwrap) sysinfoUsable() error {
	if b.seccomp == nil {
		return errSeccompArch
	}
	if _, err := notifySeccomp(); err != nil {
		return err
	}
	if err := userNotifAvailable(); err != nil {
		return err
	}
	if _, err := os.Stat(selfExe); err != nil {
		return fmt.Errorf("the daemon's binary: %w", err)
	}
	return nil
}
