package sandbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// sysinfo(2) answered with constants.
//
// sysinfo is a system call, not a file of /proc, so no bind masks it, and it tells the
// whole machine: procs counts every thread of the host (37 threads started in one sandbox
// moved it by 37 in another; a real run passed 96 bits of 98 between two answers at 1.7
// bit/s), freeram moves with any allocation, loads with runnable threads. It cannot simply
// be denied: glibc's sysconf(_SC_PHYS_PAGES) and (_SC_AVPHYS_PAGES) are made from it, and
// glibc does not check its result (a denied call leaves them garbage), nor can a filter
// alone return a struct. So every sandbox runs under a second filter, which hands each
// sysinfo call to the daemon (SECCOMP_RET_USER_NOTIF): the daemon writes a constant struct
// into the caller's memory and makes the call return 0. The constants are the sandbox's
// own: totalram is its memory limit (sysconf(_SC_PHYS_PAGES) × the page size is the bot's
// memory_mb), freeram three quarters of it, no swap, no shared or buffer memory, loads 0,
// one process, a fixed uptime.
//
// Where the supervisor lives. bwrap loads its filter from a descriptor and keeps no
// listener, and a listener can only be had by the process that installs the filter. The
// daemon cannot install one on the thread that starts bwrap (whoever holds the
// exec.Cmd starts it, on any thread; and a filter on a daemon thread stays there). So the
// sandbox's command starts with the daemon's own binary (the test binary in tests) in a
// helper mode (notifyexec.go): it installs the filter with
// SECCOMP_FILTER_FLAG_NEW_LISTENER, passes the listener over a Unix socket to the daemon
// (SCM_RIGHTS), joins the sandbox's cgroup and executes the real command (bwrap, or
// nsenter then bwrap). Every
// process of the sandbox inherits the filter, whatever runs in it: pyclass harnesses,
// kothd's launcher and the bots it starts, one-shot argv launches, builds. The daemon
// answers in one goroutine per sandbox, waiting on the listener through Go's poller (no
// thread per sandbox), until the last process under the filter is gone (the listener then
// reports a hangup). A supervisor inside the sandbox would be the bot's to kill or stop;
// in the daemon it is out of reach, and the sandbox's limits are at hand.
//
// Writing into the caller is done the way seccomp_unotify(2) prescribes: open
// /proc/<pid>/mem, then check that the notification is still pending
// (SECCOMP_IOCTL_NOTIF_ID_VALID: the caller is still blocked in the call, so the pid
// still names it and not a process that reused the number), then write, then answer. A
// caller whose memory the daemon cannot open or write (an address it has not mapped, a
// host whose security module forbids it) gets EFAULT, never the real figures.
//
// A bot could call sysinfo in a loop to spend the daemon's CPU (each answer costs some
// 25 µs of it, outside the bot's cgroup): each sandbox is answered at most
// sysinfoRate times a second after a burst of sysinfoBurst; a faster caller waits.

// Bounds on what one sandbox's sysinfo calls cost the daemon.
const (
	sysinfoRate  = 1000 // answers per second, sustained
	sysinfoBurst = 200  // answers at once before the rate applies
)

// Constant fields of the answer.
const (
	sysinfoUptime = 1000 // seconds
	sysinfoProcs  = 1
)

// sysinfoAnswer is the struct sysinfo a sandbox whose memory limit is memBytes gets, in the
// kernel's layout on 64-bit architectures (the only ones with a filter).
func sysinfoAnswer(memBytes int64) []byte {
	var si unix.Sysinfo_t
	si.Uptime = sysinfoUptime
	si.Totalram = uint64(memBytes)
	si.Freeram = uint64(memBytes) / 4 * 3
	si.Procs = sysinfoProcs
	si.Unit = 1
	return unsafe.Slice((*byte)(unsafe.Pointer(&si)), unsafe.Sizeof(si))
}

// The user-notification ABI (uapi linux/seccomp.h).
const (
	seccompRetUserNotif = 0x7fc00000
	// SECCOMP_IOCTL_NOTIF_ID_VALID is _IOW('!', 2, __u64); the first kernels with user
	// notification knew it only as _IOR (0x80082102), which later ones still accept.
	seccompIoctlNotifIDValid    = 0x40082102
	seccompIoctlNotifIDValidOld = 0x80082102
)

type seccompNotif struct {
	ID    uint64
	Pid   uint32
	Flags uint32
	Nr    int32
	Arch  uint32
	IP    uint64
	Args  [6]uint64
}

type seccompNotifResp struct {
	ID    uint64
	Val   int64
	Error int32
	Flags uint32
}

// notifySeccomp is the helper's filter program in the kernel's format: sysinfo of this
// architecture goes to the listener, everything else is left to the sandbox's own filter.
var notifySeccomp = sync.OnceValues(func() ([]byte, error) {
	nr, ok := nativeSeccomp.numbers["sysinfo"]
	if !ok {
		return nil, errSeccompArch
	}
	return assembleRaw(notifyProgram(nativeSeccomp.audit, nativeSeccomp.x32Bit, nr))
})

// notifyProgram: a foreign architecture is killed and an x32 call refused, as by the
// sandbox's filter (seccomp.go); sysinfo is handed to the listener.
func notifyProgram(audit, x32Bit, sysinfoNr uint32) []bpf.Instruction {
	p := []bpf.Instruction{
		bpf.LoadAbsolute{Off: seccompDataArch, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: audit, SkipTrue: 1},
		bpf.RetConstant{Val: seccompRetKillProcess},
		bpf.LoadAbsolute{Off: seccompDataNr, Size: 4},
	}
	if x32Bit != 0 {
		p = append(p,
			bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: x32Bit, SkipFalse: 1},
			bpf.RetConstant{Val: seccompRetErrno | uint32(unix.ENOSYS)})
	}
	return append(p,
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: sysinfoNr, SkipFalse: 1},
		bpf.RetConstant{Val: seccompRetUserNotif},
		bpf.RetConstant{Val: seccompRetAllow})
}

// sysinfoSupervisor answers the sysinfo calls of one sandbox.
type sysinfoSupervisor struct {
	answer []byte
	sysNr  int32
	// token bucket (sysinfoRate, sysinfoBurst)
	tokens float64
	last   time.Time

	mu       sync.Mutex
	stopped  bool
	sock     *os.File // the daemon's end of the socket to the helper
	listener *os.File // once received
}

// newSysinfoSupervisor makes the supervisor of a sandbox whose memory limit is memBytes,
// to receive its listener on sock (the daemon's end of the socket pair).
func newSysinfoSupervisor(sock *os.File, memBytes int64) *sysinfoSupervisor {
	return &sysinfoSupervisor{answer: sysinfoAnswer(memBytes), sysNr: int32(nativeSeccomp.numbers["sysinfo"]),
		tokens: sysinfoBurst, last: time.Now(), sock: sock}
}

// run takes the listener the helper sends and answers the sandbox's sysinfo calls until
// no process is left under the filter or stop. A command never started sends nothing:
// run then waits for stop (Release).
func (s *sysinfoSupervisor) run() {
	defer s.stop()
	listener, err := receiveFD(s.sock)
	if err != nil || listener == nil {
		return
	}
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		listener.Close()
		return
	}
	s.listener = listener
	s.mu.Unlock()
	s.serve(listener)
}

// stop closes the socket and the listener: calls still to come from the sandbox (there
// should be none: Release has killed it) fail with ENOSYS. Safe on nil and twice.
func (s *sysinfoSupervisor) stop() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return
	}
	s.stopped = true
	s.sock.Close()
	if s.listener != nil {
		s.listener.Close()
	}
}

// receiveFD reads one message carrying a descriptor from sock (nonblocking, through the
// poller); nil when the other end closed without sending one.
func receiveFD(sock *os.File) (*os.File, error) {
	rc, err := sock.SyscallConn()
	if err != nil {
		return nil, err
	}
	var got *os.File
	var rerr error
	err = rc.Read(func(fd uintptr) bool {
		buf := make([]byte, 1)
		oob := make([]byte, unix.CmsgSpace(4))
		_, oobn, _, _, err := unix.Recvmsg(int(fd), buf, oob, unix.MSG_CMSG_CLOEXEC)
		if err == unix.EAGAIN || err == unix.EINTR {
			return false
		}
		if err != nil {
			rerr = err
			return true
		}
		msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
		if err != nil || len(msgs) == 0 {
			rerr = err
			return true
		}
		fds, err := unix.ParseUnixRights(&msgs[0])
		if err != nil || len(fds) != 1 {
			for _, f := range fds {
				unix.Close(f)
			}
			rerr = fmt.Errorf("sysinfo supervisor: %d descriptors (%v)", len(fds), err)
			return true
		}
		if err := unix.SetNonblock(fds[0], true); err != nil {
			unix.Close(fds[0])
			rerr = err
			return true
		}
		got = os.NewFile(uintptr(fds[0]), "seccomp-listener")
		return true
	})
	if err == nil {
		err = rerr
	}
	return got, err
}

// serve answers notifications until the listener hangs up (no process left under the
// filter) or fails.
func (s *sysinfoSupervisor) serve(listener *os.File) {
	rc, err := listener.SyscallConn()
	if err != nil {
		return
	}
	for {
		var n seccompNotif
		done, have := false, false
		err := rc.Read(func(fd uintptr) bool {
			pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			k, err := unix.Poll(pfd, 0)
			switch {
			case err == unix.EINTR || err == nil && k == 0:
				return false // nothing yet: wait for the poller
			case err != nil:
				done = true
				return true
			}
			if pfd[0].Revents&unix.POLLIN == 0 { // hangup: the filter has no process left
				done = true
				return true
			}
			n = seccompNotif{} // the kernel refuses a buffer that is not zeroed
			_, _, e := unix.Syscall(unix.SYS_IOCTL, fd, unix.SECCOMP_IOCTL_NOTIF_RECV, uintptr(unsafe.Pointer(&n)))
			switch e {
			case 0:
				have = true
			case unix.ENOENT, unix.EINTR: // the caller was killed or interrupted meanwhile
			default:
				done = true
			}
			return true
		})
		if err != nil || done {
			return
		}
		if have {
			s.wait()
			s.handle(listener, &n)
		}
	}
}

// wait spends a token, sleeping until there is one.
func (s *sysinfoSupervisor) wait() {
	now := time.Now()
	s.tokens = min(sysinfoBurst, s.tokens+now.Sub(s.last).Seconds()*sysinfoRate)
	s.last = now
	if s.tokens < 1 {
		time.Sleep(time.Duration((1 - s.tokens) / sysinfoRate * float64(time.Second)))
		s.tokens = 1
		s.last = time.Now()
	}
	s.tokens--
}

// handle answers one notification: the constant struct written at the caller's pointer,
// and a return of 0 (EFAULT when it cannot be written).
func (s *sysinfoSupervisor) handle(listener *os.File, n *seccompNotif) {
	resp := seccompNotifResp{ID: n.ID}
	switch {
	case n.Nr != s.sysNr:
		resp.Error = -int32(unix.ENOSYS) // the filter sends nothing else
	default:
		written, over := writeCaller(listener, n.ID, int(n.Pid), n.Args[0], s.answer)
		if over {
			return // the call is over (the caller was killed): nothing to answer
		}
		if !written {
			resp.Error = -int32(unix.EFAULT)
		}
	}
	rc, err := listener.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) {
		// ENOENT: the caller was interrupted meanwhile; its call is restarted and comes
		// again as a new notification.
		_, _, _ = unix.Syscall(unix.SYS_IOCTL, fd, unix.SECCOMP_IOCTL_NOTIF_SEND, uintptr(unsafe.Pointer(&resp)))
	})
	runtime.KeepAlive(listener)
}

// writeCaller writes data at addr in the memory of the process pid, which is blocked in
// notification id. over is true when the notification is no longer pending (the caller
// was killed or interrupted): pid may then name another process, and nothing is written.
// When the check itself fails otherwise, nothing is written either, and the caller gets
// EFAULT.
func writeCaller(listener *os.File, id uint64, pid int, addr uint64, data []byte) (written, over bool) {
	mem, err := unix.Open("/proc/"+strconv.Itoa(pid)+"/mem", unix.O_WRONLY|unix.O_CLOEXEC, 0)
	if err == nil {
		defer unix.Close(mem)
	}
	switch e := notifValid(listener, id); {
	case e == unix.ENOENT:
		return false, true
	case e != 0 || err != nil || addr > 1<<63-1:
		return false, false
	}
	k, err := unix.Pwrite(mem, data, int64(addr))
	return err == nil && k == len(data), false
}

// notifValid is 0 when notification id is still pending on listener, ENOENT when not.
func notifValid(listener *os.File, id uint64) unix.Errno {
	rc, err := listener.SyscallConn()
	if err != nil {
		return unix.EBADF
	}
	var e unix.Errno
	_ = rc.Control(func(fd uintptr) {
		_, _, e = unix.Syscall(unix.SYS_IOCTL, fd, seccompIoctlNotifIDValid, uintptr(unsafe.Pointer(&id)))
		if e == unix.ENOTTY || e == unix.EINVAL {
			_, _, e = unix.Syscall(unix.SYS_IOCTL, fd, seccompIoctlNotifIDValidOld, uintptr(unsafe.Pointer(&id)))
		}
	})
	return e
}

// assembleRaw turns a program into the kernel's struct sock_filter array.
func assembleRaw(prog []bpf.Instruction) ([]byte, error) {
	raw, err := bpf.Assemble(prog)
	if err != nil {
		return nil, fmt.Errorf("seccomp: %w", err)
	}
	out := make([]byte, 0, 8*len(raw))
	for _, ins := range raw {
		out = binary.NativeEndian.AppendUint16(out, ins.Op)
		out = append(out, ins.Jt, ins.Jf)
		out = binary.NativeEndian.AppendUint32(out, ins.K)
	}
	return out, nil
}

// errNoUserNotif says the kernel cannot hand system calls to a supervisor (before 5.0).
var errNoUserNotif = errors.New("seccomp: the kernel has no user notification (SECCOMP_RET_USER_NOTIF, Linux 5.0)")

// userNotifAvailable reports whether the kernel knows SECCOMP_RET_USER_NOTIF.
func userNotifAvailable() error {
	action := uint32(seccompRetUserNotif)
	_, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&action)))
	if e != 0 {
		return fmt.Errorf("%w: %v", errNoUserNotif, e)
	}
	return nil
}
