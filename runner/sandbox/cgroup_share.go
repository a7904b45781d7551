package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// Shares: the bots of a run share the machine as answers, not as processes. Without them
// every sandbox is one peer of the daemon's other cgroups, so an answer of ten classes
// that fork spinning children weighs ten times an answer of one, and ten classes holding
// 700 MB each hold 7 GB of the host's memory: one answer of spinners took a forty run
// from 11 s to 79 s and timed an innocent bot out, one of memory hogs a run from 10 s to
// 4.5 minutes.
//
// So a run gets a cgroup of its own under the daemon's (Shares: kothd-<pid>-run<n>), which
// bounds the memory of all its bots together (limits.total_memory_mb), and each answer a
// cgroup under it (Share: a<answer id>, or b<bot> for a built-in bot), in which the
// sandboxes of the answer's classes are made, bounded to half of the run's memory. Every
// answer's cgroup has the same CPU weight (cpu.shares 1024 on v1, cpu.weight 100 on v2),
// so while the CPUs are contended one answer's processes together get no more of them
// than any other answer's, however many classes, processes or threads it has; each
// sandbox keeps its own bandwidth cap of one CPU (sandboxCPUs) and memory and task limits.
//
// The run's cgroup weighs as much as its answers together (their number times the
// default weight): against the daemon and the host's other tasks the run's bots count as
// many peers as there are answers, where each sandbox used to count as one. At the
// default weight the whole run would count as one process of the host's, and a run on a
// busy host would crawl.

// answerWeight is every answer's CPU weight, the kernel's default for a new cgroup.
const (
	answerWeightV1 = 1024
	answerWeightV2 = 100
)

// Shares is the cgroup of one run's bots. A nil *Shares (no cgroups: sandbox none,
// cgroups off) hands out nil Shares, and a sandbox made with a nil Share goes directly
// under the daemon's cgroup, as before.
type Shares struct {
	node
	memoryMB int
	mu       sync.Mutex
	answers  map[string]*Share
	closed   bool
	// The run's memory watcher (memwatch.go): closed to stop it, closed when it ended;
	// stops counts the answers it stopped.
	watchStop, watchDone chan struct{}
	stops                atomic.Int64
	// brake is the level of the run's v2 memory.high (memwatch.go, brakeLevel), 0 on v1
	// (none); high is what memory.high holds now (0: max). Only the watcher's goroutine
	// changes high, newShares before it starts and StopWatching once it has ended.
	brake, high int64
}

// Share is the cgroup of one answer's sandboxes within a run.
type Share struct {
	node
	mu   sync.Mutex
	live map[*sandboxCgroup]struct{} // its sandboxes not yet released (memwatch.go)
}

// node is a cgroup directory below the daemon's, in every hierarchy the tree uses (the
// same relative path in each).
type node struct {
	Tree *cgroupTree
	Rel  string // relative to each of the tree's directories
}

// dirs lists the node's directory in each hierarchy, once each (on v2 there is one).
func (n *node) dirs() []string {
	var out []string
	for _, b := range n.Tree.bases() {
		out = append(out, filepath.Join(b, n.Rel))
	}
	return out
}

// bases are the tree's directories, once each.
func (t *cgroupTree) bases() []string {
	var bases []string
	for _, b := range []string{t.Mem, t.Pids, t.cpu, t.acct} {
		if !slices.Contains(bases, b) {
			bases = append(bases, b)
		}
	}
	return bases
}

// NewShares makes the cgroup of a run's bots in sb's cgroup tree, bounding their memory
// together to totalMemoryMB (0: DefaultTotalMemoryMB). It returns nil (and no error) when
// sb limits no sandbox by cgroups. Close it when the run's processes have ended.
func NewShares(sb Sandbox, totalMemoryMB int) (*Shares, error) {
	s, err := newShares(sb, totalMemoryMB)
	if s != nil {
		s.watch()
	}
	return s, err
}

// newShares is NewShares without the memory watcher (tests start it late, to play a
// watcher that looks too late).
func newShares(sb Sandbox, totalMemoryMB int) (*Shares, error) {
	b, ok := sb.(*Bwrap)
	if !ok || b.cgroups == nil {
		return nil, nil
	}
	if totalMemoryMB <= 0 {
		totalMemoryMB = DefaultTotalMemoryMB()
	}
	t := b.cgroups
	s := &Shares{node: node{Tree: t, Rel: sandboxPrefix() + "run" + strconv.FormatUint(t.seq.Add(1), 10)},
		memoryMB: totalMemoryMB, answers: map[string]*Share{}}
	if err := s.make(); err != nil {
		s.remove()
		return nil, fmt.Errorf("the run's cgroup: %w", err)
	}
	mem := strconv.FormatInt(int64(totalMemoryMB)<<20, 10)
	d := filepath.Join(t.Mem, s.Rel)
	if t.V2 {
		if err := writeCgroup(d, "memory.max", mem); err != nil {
			s.remove()
			return nil, err
		}
		if err := writeCgroup(d, "memory.swap.max", "0"); err != nil && !errors.Is(err, os.ErrNotExist) {
			s.remove()
			return nil, err
		}
		s.brake = brakeLevel(int64(totalMemoryMB) << 20)
		s.setBrake(s.brake)
		return s, nil
	}
	if err := writeCgroup(d, "memory.limit_in_bytes", mem); err != nil {
		s.remove()
		return nil, err
	}
	if err := writeCgroup(d, "memory.memsw.limit_in_bytes", mem); err != nil && !errors.Is(err, os.ErrNotExist) {
		s.remove()
		return nil, err
	}
	return s, nil
}

// StopWatching ends the run's memory watcher (memwatch.go) before the run ends, and
// lifts its brake: the kernel alone then bounds the run's memory, killing the largest
// process under it when it is full. Close calls it; tests call it to play what the
// watcher prevents. Call it from one goroutine.
func (s *Shares) StopWatching() {
	if s.pauseWatching() {
		s.setBrake(0)
	}
}

// pauseWatching ends the watcher and leaves the brake as it is (tests play a watcher that
// looks late with it; watch starts it again); it reports whether a watcher was running.
func (s *Shares) pauseWatching() bool {
	if s == nil || s.watchStop == nil {
		return false
	}
	close(s.watchStop)
	<-s.watchDone
	s.watchStop = nil
	return true
}

// watch starts the run's memory watcher (memwatch.go).
func (s *Shares) watch() {
	s.watchStop, s.watchDone = make(chan struct{}), make(chan struct{})
	go s.watchMemory()
}

// make creates the node's directories and, on v2, hands the controllers to its children.
func (n *node) make() error {
	for _, d := range n.dirs() {
		if err := os.Mkdir(d, 0o755); err != nil {
			return fmt.Errorf("make cgroup: %w", err)
		}
	}
	if n.Tree.V2 {
		return enableV2(filepath.Join(n.Tree.Mem, n.Rel))
	}
	return nil
}

// remove removes the node's directories (they must hold no process and no child).
func (n *node) remove() error {
	var first error
	for _, d := range n.dirs() {
		if err := syscall.Rmdir(d); err != nil && !errors.Is(err, syscall.ENOENT) && first == nil {
			first = fmt.Errorf("remove cgroup %s: %w", d, err)
		}
	}
	return first
}

// MemoryMB is the bound on the memory of the run's bots together.
func (s *Shares) MemoryMB() int {
	if s == nil {
		return 0
	}
	return s.memoryMB
}

// Answer returns the cgroup of one answer's sandboxes, made on first use; key names the
// answer (AnswerKey). On a nil Shares, or once the cgroup cannot be made (the sandbox
// then reports the error when it is made under it), it returns nil or the failing Share.
func (s *Shares) Answer(key string) *Share {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if a := s.answers[key]; a != nil {
		return a
	}
	a := &Share{node: node{Tree: s.Tree, Rel: filepath.Join(s.Rel, key)}}
	if !s.closed {
		if err := a.make(); err == nil {
			file, weight, most := "cpu.shares", answerWeightV1, 262144
			if s.Tree.V2 {
				file, weight, most = "cpu.weight", answerWeightV2, 10000
			}
			_ = writeCgroup(filepath.Join(s.Tree.cpu, a.Rel), file, strconv.Itoa(weight))
			// No answer may hold more than half of the run's memory: one that fills its
			// half is stopped inside its own cgroup (the kernel kills one of its processes,
			// its own fault, sandboxCgroup.judgeKill), never by the run's bound, where the
			// kernel kills the largest process of any answer, an honest one included.
			// Several answers that fill the run together are stopped before it is full by
			// the run's memory watcher (memwatch.go).
			half := strconv.FormatInt(int64(s.memoryMB)<<19, 10)
			_ = writeCgroup(filepath.Join(s.Tree.Mem, a.Rel), pick(s.Tree.V2, "memory.max", "memory.limit_in_bytes"), half)
			// The run weighs as much as its answers together against the daemon's other
			// tasks: as each sandbox did before, but per answer, not per process.
			_ = writeCgroup(filepath.Join(s.Tree.cpu, s.Rel), file, strconv.Itoa(min(weight*(len(s.answers)+1), most)))
		}
	}
	s.answers[key] = a
	return a
}

// AnswerKey names an answer's cgroup: its answer id, or for a built-in bot (answer 0) the
// bot's index, each built-in bot an answer of its own.
func AnswerKey(answerID int64, bot int) string {
	if answerID != 0 {
		return "a" + strconv.FormatInt(answerID, 10)
	}
	return "b" + strconv.Itoa(bot)
}

// Close removes the run's cgroups. Every sandbox made under them must have been released.
func (s *Shares) Close() error {
	if s == nil {
		return nil
	}
	s.StopWatching()
	s.mu.Lock()
	s.closed = true
	answers := s.answers
	s.answers = nil
	s.mu.Unlock()
	var first error
	for _, a := range answers {
		if err := a.remove(); err != nil && first == nil {
			first = err
		}
	}
	if err := s.remove(); err != nil && first == nil {
		first = err
	}
	return first
}

// DefaultTotalMemoryMB is the default bound on all bots of a run together: half of the
// machine's memory (MemTotal), or 4096 MiB where /proc/meminfo cannot be read.
func DefaultTotalMemoryMB() int {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 4096
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err == nil && kb > 0 {
				return int(kb / 1024 / 2)
			}
		}
	}
	return 4096
}
