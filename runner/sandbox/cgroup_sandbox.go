package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// sandboxTasks is what a sandbox's pids limit allows beyond Limits.Procs: bwrap's monitor
// outside the PID namespace and its init inside (RLIMIT_NPROC counts only the bot's).
const sandboxTasks = 2

// SandboxCPUs is the CPU bandwidth one sandbox may use: a bot that forks spinners gets
// one CPU's worth however many it starts, and the others keep theirs.
const SandboxCPUs = 1

// releaseWait bounds how long releasing a cgroup waits for its killed tasks to go.
const releaseWait = 5 * time.Second

// sandboxCgroup is the cgroup of one sandbox: one directory per v1 hierarchy, or one v2
// directory.
type sandboxCgroup struct {
	Tree *cgroupTree
	name string // relative to the tree's directories: under a Share, its path first
	// answer is the key (AnswerKey) of the Share it was made under, "" under none: its CPU
	// time is totalled per answer as it is released (SandboxesCPUByAnswer).
	answer string
	dirs   []string
	fd     *os.File      // v2: the directory, for CLONE_INTO_CGROUP
	stop   chan struct{} // ends the CPU watchdog

	cpuOver atomic.Bool // the watchdog killed the sandbox for its CPU time
	// stopped is set when the run's memory watcher stopped the sandbox's answer
	// (memwatch.go): the kill for memory it then was.
	stopped atomic.Pointer[memKill]
	share   *Share // the answer's cgroup it was made under; nil under none

	once     sync.Once
	mu       sync.Mutex // held while reading live files and while removing them
	released bool
	// The accounting files CPU and oomKilled read, held open while the sandbox lives: a
	// launcher reads them after every decision, and opening a cgroup file takes several
	// system calls where a pread takes one. Guarded by mu; closed on release.
	cpuFile, oomFile, answerFile liveFile
	// procsFile is pids.current, read after each reply of a long-lived bot (killStrays);
	// keep are the processes found to be the sandbox's own: bwrap, its init and the bot's
	// first process. Guarded by mu.
	procsFile liveFile
	keep      []int
	// pidsMax is what limit wrote to pids.max, put back after a sweep that held the
	// sandbox at 0 (killStrays) through pidsMaxFile, opened at the first such sweep and
	// kept, so that putting it back needs no descriptor the host may be short of.
	pidsMax     string
	pidsMaxFile liveFile
	botPid      int           // the one of keep that is pid 2 inside
	cpuUsed     time.Duration // final figures, once released
	ooms        int64
	kill        memKill // see judgeKill; final once released
}

// newSandbox makes and limits a fresh cgroup for one sandbox (l with defaults filled),
// under its answer's cgroup in its run's (share), or directly under the daemon's (nil).
func (t *cgroupTree) newSandbox(l Limits, share *Share) (*sandboxCgroup, error) {
	cg := &sandboxCgroup{Tree: t, name: sandboxPrefix() + strconv.FormatUint(t.seq.Add(1), 10)}
	if share != nil {
		if share.Tree != t {
			return nil, errors.New("make cgroup: the answer's cgroup is another sandbox's")
		}
		cg.name = filepath.Join(share.Rel, cg.name)
		cg.answer = filepath.Base(share.Rel)
		cg.share = share
	}
	for _, b := range t.bases() {
		d := filepath.Join(b, cg.name)
		if err := os.Mkdir(d, 0o755); err != nil {
			cg.release()
			return nil, fmt.Errorf("make cgroup: %w", err)
		}
		cg.dirs = append(cg.dirs, d)
	}
	if err := cg.limit(l); err != nil {
		cg.release()
		return nil, err
	}
	if t.V2 {
		fd, err := os.Open(cg.Dir(t.Mem))
		if err != nil {
			cg.release()
			return nil, err
		}
		cg.fd = fd
	}
	if l.CPUTime > 0 {
		cg.stop = make(chan struct{})
		go cg.watchCPU(l.CPUTime)
	}
	share.track(cg)
	return cg, nil
}

func (cg *sandboxCgroup) Dir(base string) string { return filepath.Join(base, cg.name) }

// limit writes the sandbox's memory, task and CPU bounds. Memory is Limits.MemoryMB for
// all the sandbox's processes together, without swap.
func (cg *sandboxCgroup) limit(l Limits) error {
	t := cg.Tree
	mem := strconv.FormatInt(int64(l.MemoryMB)<<20, 10)
	pids := strconv.Itoa(l.Procs + sandboxTasks)
	cg.pidsMax = pids
	if t.V2 {
		d := cg.Dir(t.Mem)
		const period = 100000
		for _, w := range [][2]string{{"memory.max", mem}, {"memory.swap.max", "0"}, {"pids.max", pids},
			{"cpu.max", fmt.Sprintf("%d %d", SandboxCPUs*period, period)}} {
			// memory.swap.max is absent when the kernel accounts no swap: nothing to bound.
			if err := writeCgroup(d, w[0], w[1]); err != nil && !(w[0] == "memory.swap.max" && errors.Is(err, os.ErrNotExist)) {
				return err
			}
		}
		return nil
	}
	if err := writeCgroup(cg.Dir(t.Mem), "memory.limit_in_bytes", mem); err != nil {
		return err
	}
	// memsw (memory+swap) exists only with swap accounting; without it there is no swap
	// to escape to.
	if err := writeCgroup(cg.Dir(t.Mem), "memory.memsw.limit_in_bytes", mem); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	// Socket buffers: v1 charges them to a cgroup only once its kmem.tcp limit is set, so
	// a bot parking data in loopback TCP connections it made in its own network namespace
	// held host kernel memory no limit counted (440 MB under a 200 MB sandbox). Bots have
	// no network: a few MiB is plenty. (v2 charges socket memory to memory.max.)
	// A kernel without the file (no kmem accounting) has nothing to set: cgroupfs refuses
	// to create a file with EACCES, so look first.
	if _, err := os.Stat(filepath.Join(cg.Dir(t.Mem), "memory.kmem.tcp.limit_in_bytes")); err == nil {
		if err := writeCgroup(cg.Dir(t.Mem), "memory.kmem.tcp.limit_in_bytes", strconv.Itoa(SocketBufferMB<<20)); err != nil {
			return err
		}
	}
	if err := writeCgroup(cg.Dir(t.Pids), "pids.max", pids); err != nil {
		return err
	}
	period, err := os.ReadFile(filepath.Join(cg.Dir(t.cpu), "cpu.cfs_period_us"))
	if err != nil {
		return err
	}
	p, err := strconv.ParseInt(strings.TrimSpace(string(period)), 10, 64)
	if err != nil {
		return fmt.Errorf("cgroup cpu.cfs_period_us: %w", err)
	}
	return writeCgroup(cg.Dir(t.cpu), "cpu.cfs_quota_us", strconv.FormatInt(SandboxCPUs*p, 10))
}

// SocketBufferMB bounds the kernel's socket buffers of one sandbox on cgroup v1 (see limit).
const SocketBufferMB = 16

// joinScript puts the shell in the cgroups named by its first $1 arguments, then executes
// the rest. cgroup v1 cannot start a process inside a cgroup, and moving bwrap after
// exec.Cmd.Start would race with the children it forks at once; the shell joins first and
// then becomes bwrap, so nothing of the sandbox ever runs outside. A failed join ends the
// shell before bwrap runs: a sandbox failure (sandboxFailed), the host's fault.
const joinScript = `n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ >"$1" || exit 125; shift; n=$((n-1)); done; exec "$@"`

var shPath = sync.OnceValues(func() (string, error) { return exec.LookPath("sh") })

// enter makes cmd start inside the cgroup: on v2 the kernel creates the process there
// (clone3 with CLONE_INTO_CGROUP); on v1 a shell joins and then executes the command.
func (cg *sandboxCgroup) enter(cmd *exec.Cmd) error {
	if cg.fd != nil {
		cmd.SysProcAttr.UseCgroupFD = true
		cmd.SysProcAttr.CgroupFD = int(cg.fd.Fd())
		return nil
	}
	sh, err := shPath()
	if err != nil {
		return fmt.Errorf("a shell to join the cgroup: %w", err)
	}
	args := []string{"sh", "-c", joinScript, "kothd-join", strconv.Itoa(len(cg.dirs))}
	for _, d := range cg.dirs {
		args = append(args, filepath.Join(d, "cgroup.procs"))
	}
	cmd.Args = append(append(args, cmd.Path), cmd.Args[1:]...)
	cmd.Path = sh
	return nil
}

// readCPU is the CPU time the sandbox's processes have used, dead ones included.
func (cg *sandboxCgroup) readCPU() (time.Duration, error) {
	data, err := os.ReadFile(cg.cpuPath(cg.Dir(cg.Tree.acct)))
	if err != nil {
		return 0, err
	}
	return cg.parseCPU(data)
}

// cpuPath is the CPU accounting file of the cgroup at dir (v2 cpu.stat, v1 cpuacct.usage).
func (cg *sandboxCgroup) cpuPath(dir string) string {
	return filepath.Join(dir, pick(cg.Tree.V2, "cpu.stat", "cpuacct.usage"))
}

// parseCPU reads a CPU accounting file's content: v2 cpu.stat's usage_usec, v1
// cpuacct.usage's nanoseconds.
func (cg *sandboxCgroup) parseCPU(data []byte) (time.Duration, error) {
	if cg.Tree.V2 {
		us, err := cgroupKey(data, "usage_usec")
		return time.Duration(us) * time.Microsecond, err
	}
	ns, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	return time.Duration(ns), err
}

// answerCPU is the CPU time every sandbox of the sandbox's answer (its Share) has used,
// read through a held-open file (a launcher reads it before every decision); ok is false
// for a sandbox under no Share, or once released.
func (cg *sandboxCgroup) answerCPU() (time.Duration, bool) {
	if cg.answer == "" {
		return 0, false
	}
	cg.mu.Lock()
	defer cg.mu.Unlock()
	if cg.released {
		return 0, false
	}
	var buf [1024]byte
	data, err := cg.answerFile.read(cg.cpuPath(filepath.Dir(cg.Dir(cg.Tree.acct))), buf[:])
	if err != nil {
		return 0, false
	}
	used, err := cg.parseCPU(data)
	return used, err == nil
}

// readOOM is how many of the sandbox's processes the kernel killed for its memory limit.
func (cg *sandboxCgroup) readOOM() int64 {
	n, _ := readCgroupKey(cg.oomPath(), "oom_kill")
	return n
}

func (cg *sandboxCgroup) oomPath() string {
	file := "memory.oom_control"
	if cg.Tree.V2 {
		file = "memory.events"
	}
	return filepath.Join(cg.Dir(cg.Tree.Mem), file)
}

// liveCPU is readCPU through the held-open file (cg.mu held, not released).
func (cg *sandboxCgroup) liveCPU() (time.Duration, error) {
	var buf [1024]byte
	data, err := cg.cpuFile.read(cg.cpuPath(cg.Dir(cg.Tree.acct)), buf[:])
	if err != nil {
		return 0, err
	}
	return cg.parseCPU(data)
}

// liveOOM is readOOM through the held-open file (cg.mu held, not released).
func (cg *sandboxCgroup) liveOOM() int64 {
	var buf [1024]byte
	data, err := cg.oomFile.read(cg.oomPath(), buf[:])
	if err != nil {
		return 0
	}
	n, _ := cgroupKey(data, "oom_kill")
	return n
}

// liveFile is a cgroup file opened on its first read and read whole from its start each
// time after.
type liveFile struct {
	fd   int
	open bool
}

func (f *liveFile) read(path string, buf []byte) ([]byte, error) {
	if !f.open {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != nil {
			return nil, err
		}
		f.fd, f.open = fd, true
	}
	for {
		n, err := syscall.Pread(f.fd, buf, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		return buf[:n], nil
	}
}

// write writes data at the start of the file, opened for writing at the first call (a
// liveFile is read or written, never both).
func (f *liveFile) write(path string, data []byte) error {
	if !f.open {
		fd, err := syscall.Open(path, syscall.O_WRONLY|syscall.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		f.fd, f.open = fd, true
	}
	for {
		_, err := syscall.Pwrite(f.fd, data, 0)
		if err != syscall.EINTR {
			return err
		}
	}
}

func (f *liveFile) close() {
	if f.open {
		_ = syscall.Close(f.fd)
		f.open = false
	}
}

// CPU is the sandbox's CPU time so far (or in total, once released).
func (cg *sandboxCgroup) CPU() (time.Duration, error) {
	cg.mu.Lock()
	defer cg.mu.Unlock()
	if cg.released {
		return cg.cpuUsed, nil
	}
	return cg.liveCPU()
}

// oomKilled is the kill for memory of the sandbox's processes, if any: by the kernel, at
// the bound judgeKill names, or by the run's memory watcher (memwatch.go).
func (cg *sandboxCgroup) oomKilled() memKill {
	if k := cg.stopped.Load(); k != nil {
		return *k
	}
	cg.mu.Lock()
	defer cg.mu.Unlock()
	if cg.released {
		return cg.kill
	}
	if cg.readOOM() == 0 {
		return memKill{}
	}
	return cg.judgeKill()
}

// pick is a if v2, else b: a cgroup file's name in either version.
func pick(v2 bool, a, b string) string {
	if v2 {
		return a
	}
	return b
}

// readCgroupInt reads a cgroup file holding one integer.
func readCgroupInt(path string) (int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
}

// watchCPU kills the sandbox once its processes together have used more than limit. No
// sandbox runs faster than sandboxCPUs, so the check can sleep until the earliest moment
// the limit could be passed; a sandbox that waits costs one read now and then.
func (cg *sandboxCgroup) watchCPU(limit time.Duration) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-cg.stop:
			return
		case <-timer.C:
		}
		used, err := cg.readCPU()
		if err != nil {
			return
		}
		if used > limit {
			cg.cpuOver.Store(true)
			cg.killAll()
			return
		}
		timer.Reset(max((limit-used)/SandboxCPUs, 10*time.Millisecond))
	}
}

// killAll sends SIGKILL to every process in the cgroup and reports whether any was there.
// On v2 the cgroup is looked at before the kill as well as after: processes killed in
// the meantime can be gone by the second look (a process the kernel held asleep for
// memory wakes to the kill at once), and the kill was then reported as finding nobody,
// so the run's memory watcher took back the mark that names the answer's fault.
func (cg *sandboxCgroup) killAll() bool {
	d := cg.Dir(cg.Tree.Pids)
	if cg.Tree.V2 {
		events := filepath.Join(d, "cgroup.events")
		before, _ := readCgroupKey(events, "populated")
		if err := writeCgroup(d, "cgroup.kill", "1"); err == nil {
			after, _ := readCgroupKey(events, "populated")
			return before != 0 || after != 0
		}
	}
	data, err := os.ReadFile(filepath.Join(d, "cgroup.procs"))
	if err != nil {
		return false
	}
	pids := strings.Fields(string(data))
	for _, s := range pids {
		if pid, err := strconv.Atoi(s); err == nil && pid != os.Getpid() {
			killPid(pid)
		}
	}
	return len(pids) > 0
}

// populated reports whether a process (other than the daemon, which enters a sandbox's
// cgroup for an instant while starting it) is in the sandbox's cgroup.
func (cg *sandboxCgroup) populated() bool {
	d := cg.Dir(cg.Tree.Pids)
	if cg.Tree.V2 {
		n, err := readCgroupKey(filepath.Join(d, "cgroup.events"), "populated")
		return err == nil && n != 0
	}
	data, err := os.ReadFile(filepath.Join(d, "cgroup.procs"))
	if err != nil {
		return false
	}
	for _, s := range strings.Fields(string(data)) {
		if pid, err := strconv.Atoi(s); err == nil && pid != os.Getpid() {
			return true
		}
	}
	return false
}

// release kills whatever is left in the cgroup, keeps its final CPU time and OOM count,
// and removes it. It is safe to call more than once and from any goroutine.
func (cg *sandboxCgroup) release() error {
	var err error
	cg.once.Do(func() {
		if cg.stop != nil {
			close(cg.stop)
		}
		deadline := time.Now().Add(releaseWait)
		for len(cg.dirs) > 0 && cg.killAll() && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		cg.mu.Lock()
		defer cg.mu.Unlock()
		if len(cg.dirs) > 0 {
			cg.cpuUsed, _ = cg.readCPU()
			cg.ooms = cg.readOOM()
			if cg.ooms > 0 {
				cg.kill = cg.judgeKill()
			}
			releasedCPU.Add(int64(cg.cpuUsed))
			releasedSandboxes.Add(1)
			if cg.answer != "" {
				v, _ := releasedByAnswer.LoadOrStore(cg.answer, new(atomic.Int64))
				v.(*atomic.Int64).Add(int64(cg.cpuUsed))
			}
		}
		cg.released = true
		cg.share.untrack(cg)
		cg.cpuFile.close()
		cg.answerFile.close()
		cg.oomFile.close()
		cg.procsFile.close()
		cg.pidsMaxFile.close()
		for _, d := range slices.Backward(cg.dirs) {
			for {
				e := syscall.Rmdir(d)
				if e == nil || errors.Is(e, syscall.ENOENT) {
					break
				}
				if !isBusy(e) || time.Now().After(deadline) {
					err = fmt.Errorf("remove cgroup %s: %w", d, e)
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
		if cg.fd != nil {
			cg.fd.Close()
		}
	})
	return err
}

// releasedCPU and releasedSandboxes total the CPU time and number of the sandboxes this
// process has released, for SandboxesCPU.
var releasedCPU, releasedSandboxes atomic.Int64

// SandboxesCPU is the CPU time that every sandbox this process has released used (its
// processes, bwrap's included), as the sandboxes' cgroups counted it, and how many such
// sandboxes there were: none without cgroups (sandbox none, cgroups off). kothd bench
// reads it around a run.
func SandboxesCPU() (time.Duration, int64) {
	return time.Duration(releasedCPU.Load()), releasedSandboxes.Load()
}

// releasedByAnswer totals the CPU time of the released sandboxes made under a Share, by
// its key (AnswerKey → *atomic.Int64), over every run of this process.
var releasedByAnswer sync.Map

// SandboxesCPUByAnswer is SandboxesCPU per answer: the CPU time of the released sandboxes
// made under each answer's cgroup (Shares.Answer), by AnswerKey, totalled over every run
// of this process (an answer's key is the same from run to run: a caller that wants one
// run's subtracts the figures before it). kothd bench shows each answer's share of the
// bots' CPU from it, so that one bot that takes most of it is seen at once.
func SandboxesCPUByAnswer() map[string]time.Duration {
	out := map[string]time.Duration{}
	releasedByAnswer.Range(func(k, v any) bool {
		out[k.(string)] = time.Duration(v.(*atomic.Int64).Load())
		return true
	})
	return out
}

// findBotPid is the pid of the sandbox's pid 2 among its cgroup's processes, 0 when none
// is (cg.mu held).
func (cg *sandboxCgroup) findBotPid() int {
	data, err := os.ReadFile(filepath.Join(cg.Dir(cg.Tree.Pids), "cgroup.procs"))
	if err != nil {
		return 0
	}
	for _, f := range strings.Fields(string(data)) {
		if pid, err := strconv.Atoi(f); err == nil && nsPid(pid) == "2" {
			return pid
		}
	}
	return 0
}

// nsPid says which of a sandbox's own processes pid is: "-" outside its PID namespace
// (bwrap), "1" or "2" inside it; "" for any other.
func nsPid(pid int) string {
	switch ns := strings.Fields(procStatus(pid, "NSpid")); {
	case len(ns) == 1:
		return "-"
	case len(ns) > 1 && (ns[1] == "1" || ns[1] == "2"):
		return ns[1]
	}
	return ""
}

// procStatus is the value of key's line of /proc/<pid>/status; "" when pid is gone or
// the line missing.
func procStatus(pid int, key string) string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, key+":"); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}
