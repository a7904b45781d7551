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

// Sandboxes are limited as a whole through cgroups: every bwrap sandbox gets a cgroup of
// its own bounding the memory of all its processes together (heap, tmpfs, page cache and
// the kernel memory they cause: the kernel charges inodes and dentries to the cgroup of
// the process that made them), its number of tasks, and its share of the CPU; the cgroup's
// CPU accounting tells what the sandbox has used, and its OOM count names a memory kill.
// Per-process rlimits (limits.go) stay as the first, friendlier line: a single large
// allocation fails with MemoryError before the cgroup has to kill anything.
//
// The cgroupfs files are used directly rather than through a library. The well-kept one,
// github.com/containerd/cgroups/v3, brings in cilium/ebpf, godbus, go-systemd,
// runtime-spec and protobuf for what is here a handful of mkdir, write and read calls on
// three controllers, and it would not help with the one delicate step, putting bwrap in
// the cgroup before it starts the bot (see sandboxCgroup.enter).
//
// cgroup v2 is used when the daemon's own cgroup can delegate the memory, pids and cpu
// controllers; otherwise the v1 hierarchies of those controllers (and cpuacct), as on
// hosts that mount only v1 for them. Sandbox cgroups, kothd-<pid>-<n>, are made below the
// daemon's own cgroup: they stay inside whatever limits the host put on the daemon. During
// a run they sit in their answer's cgroup in the run's (cgroup_share.go: equal CPU weight
// per answer, one memory bound for the run); outside a run (class listings, validation)
// directly in the daemon's.

// CgroupsRequired and CgroupsOff are the values of the config's `cgroups` key.
const (
	CgroupsRequired = "required"
	CgroupsOff      = "off"
)

// cgroupTree is where this daemon process makes its sandboxes' cgroups.
type cgroupTree struct {
	V2 bool
	// The daemon's cgroup, parent of the sandbox cgroups, for each controller; on v2 they
	// are all the same directory. cpuacct is the CPU accounting (v1; on v2 cpu.stat of
	// the cpu controller).
	Mem, Pids, cpu, acct string
	seq                  atomic.Uint64
}

var (
	cgroupsOnce sync.Once
	cgroupsTree *cgroupTree
	cgroupsErr  error
)

// CheckCgroups reports whether this host can limit sandboxes as a whole: it finds the
// controllers (v2 preferred), makes this process's parent cgroup, and creates, limits and
// removes one sandbox cgroup. The answer is computed once per process.
func CheckCgroups() error {
	_, err := hostCgroups()
	return err
}

func hostCgroups() (*cgroupTree, error) {
	cgroupsOnce.Do(func() {
		cgroupsTree, cgroupsErr = detectCgroups()
		if cgroupsErr == nil {
			cgroupsErr = cgroupsTree.probe()
		}
		if cgroupsErr != nil {
			cgroupsErr = fmt.Errorf("cgroups cannot limit sandboxes on this host: %w", cgroupsErr)
		}
	})
	return cgroupsTree, cgroupsErr
}

// probe makes and removes one sandbox cgroup with every limit a sandbox gets.
func (t *cgroupTree) probe() error {
	cg, err := t.newSandbox(Limits{CPUTime: 1}.withDefaults(), nil)
	if err != nil {
		return err
	}
	if _, err := cg.readCPU(); err != nil {
		cg.release()
		return err
	}
	return cg.release()
}

// cgroupMount is one mounted cgroup hierarchy: where it is and which part of it the mount
// shows (not "/" inside a cgroup namespace).
type cgroupMount struct{ point, root string }

// dir is where the cgroup at path (as /proc/self/cgroup names it) is in the mount. The
// root is usually "/": cut from "/system.slice/kothd.service" it leaves no separator,
// which the v2 path once lost ("/sys/fs/cgroupsystem.slice/…": no v2 host could play).
func (m cgroupMount) dir(path string) string {
	return filepath.Join(m.point, strings.TrimPrefix(path, m.root))
}

// detectCgroups reads /proc/self/mountinfo and /proc/self/cgroup and sets up the tree.
func detectCgroups() (*cgroupTree, error) {
	v1, v2, err := cgroupMounts()
	if err != nil {
		return nil, err
	}
	own, err := ownCgroups()
	if err != nil {
		return nil, err
	}
	var v2err error
	if v2 != nil {
		if path, ok := own[""]; ok {
			t, err := setupV2(v2.dir(path))
			if err == nil {
				return t, nil
			}
			v2err = err
		}
	}
	t, err := setupV1(v1, own)
	if err != nil && v2err != nil {
		return nil, fmt.Errorf("v2: %v; v1: %w; %s", v2err, err, v2Hint)
	}
	return t, err
}

// cgroupMounts lists the v1 hierarchies by controller and the v2 mount, if any.
func cgroupMounts() (v1 map[string]cgroupMount, v2 *cgroupMount, err error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	v1 = map[string]cgroupMount{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root point options [optional…] - fstype source super-options
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fields, tail := strings.Fields(pre), strings.Fields(post)
		if !ok || len(fields) < 5 || len(tail) < 3 {
			continue
		}
		m := cgroupMount{point: unescapeMount(fields[4]), root: unescapeMount(fields[3])}
		switch tail[0] {
		case "cgroup2":
			if v2 == nil {
				v2 = &m
			}
		case "cgroup":
			for _, opt := range strings.Split(tail[2], ",") {
				if _, seen := v1[opt]; !seen {
					v1[opt] = m
				}
			}
		}
	}
	return v1, v2, sc.Err()
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ownCgroups maps each v1 controller (and "" for v2) to this process's cgroup path.
func ownCgroups() (map[string]string, error) {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, err
	}
	own := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[1] == "" {
			own[""] = parts[2]
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			own[c] = parts[2]
		}
	}
	return own, nil
}

// setupV1 finds the daemon's cgroup in each v1 hierarchy needed.
func setupV1(mounts map[string]cgroupMount, own map[string]string) (*cgroupTree, error) {
	dirs := map[string]string{}
	for _, c := range []string{"memory", "pids", "cpu", "cpuacct"} {
		m, ok := mounts[c]
		if !ok {
			return nil, fmt.Errorf("no cgroup v1 hierarchy has the %s controller (and cgroup v2 does not offer memory, pids and cpu)", c)
		}
		parent := m.dir(own[c])
		if st, err := os.Stat(parent); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("the daemon's %s cgroup %s: %v", c, parent, err)
		}
		removeStale(parent)
		dirs[c] = parent
	}
	return &cgroupTree{Mem: dirs["memory"], Pids: dirs["pids"], cpu: dirs["cpu"], acct: dirs["cpuacct"]}, nil
}

var v2Controllers = []string{"memory", "pids", "cpu"}

// v2Hint says how to give kothd what cgroup v2 needs: a cgroup of its own with the
// controllers delegated. A service has one with Delegate=yes; a command started from a
// shell shares the session's cgroup (and the memory, pids and cpu controllers are rarely
// enabled there), so it asks systemd for a scope of its own.
const v2Hint = "on a cgroup v2 host kothd needs a cgroup of its own with the controllers delegated: " +
	"the shipped unit has one (Delegate=yes); from a shell, run it in a scope: sudo systemd-run --scope -p Delegate=yes --quiet kothd …"

// setupV2 delegates memory, pids and cpu to own's children. cgroup v2 lets a cgroup hand
// controllers to its children only while it holds no process itself, so when the daemon
// sits alone in own it first moves to own/kothd-daemon (a service manager's delegated
// cgroup, systemd's Delegate=yes, is exactly that case).
func setupV2(own string) (*cgroupTree, error) {
	avail, err := os.ReadFile(filepath.Join(own, "cgroup.controllers"))
	if err != nil {
		return nil, err
	}
	for _, c := range v2Controllers {
		if !slices.Contains(strings.Fields(string(avail)), c) {
			return nil, fmt.Errorf("cgroup v2 at %s does not offer the %s controller (has %q)", own, c, strings.TrimSpace(string(avail)))
		}
	}
	if err := enableV2(own); err != nil {
		leaf := filepath.Join(own, "kothd-daemon")
		if procs, _ := os.ReadFile(filepath.Join(own, "cgroup.procs")); strings.TrimSpace(string(procs)) != strconv.Itoa(os.Getpid()) {
			return nil, fmt.Errorf("enable controllers in %s: %w (other processes share the daemon's cgroup; give kothd a delegated cgroup of its own)", own, err)
		}
		if err := os.Mkdir(leaf, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return nil, err
		}
		if err := writeCgroup(leaf, "cgroup.procs", strconv.Itoa(os.Getpid())); err != nil {
			return nil, err
		}
		if err := enableV2(own); err != nil {
			return nil, fmt.Errorf("enable controllers in %s: %w", own, err)
		}
	}
	removeStale(own)
	return &cgroupTree{V2: true, Mem: own, Pids: own, cpu: own, acct: own}, nil
}

// enableV2 turns on memory, pids and cpu for dir's children.
func enableV2(dir string) error {
	cur, err := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
	if err != nil {
		return err
	}
	var add []string
	for _, c := range v2Controllers {
		if !slices.Contains(strings.Fields(string(cur)), c) {
			add = append(add, "+"+c)
		}
	}
	if len(add) == 0 {
		return nil
	}
	return writeCgroup(dir, "cgroup.subtree_control", strings.Join(add, " "))
}

// sandboxPrefix begins this process's sandbox cgroups' names, so that two daemons (or
// test binaries) never share or remove each other's.
func sandboxPrefix() string { return "kothd-" + strconv.Itoa(os.Getpid()) + "-" }

// removeStale removes the sandbox cgroups that daemons which have ended left in parent,
// once empty (rmdir refuses a cgroup still holding tasks).
func removeStale(parent string) {
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), "kothd-")
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !e.IsDir() || !ok || err != nil || pid == os.Getpid() {
			continue
		}
		if _, err := os.Stat("/proc/" + pidText); err == nil {
			continue // that daemon still runs
		}
		removeTree(filepath.Join(parent, e.Name()))
	}
}

// removeTree removes an empty cgroup and the empty cgroups below it (a run's cgroup holds
// its answers', which hold sandboxes'), deepest first.
func removeTree(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			removeTree(filepath.Join(dir, e.Name()))
		}
	}
	_ = syscall.Rmdir(dir)
}

// writeCgroup writes one control file.
func writeCgroup(dir, file, value string) error {
	if err := os.WriteFile(filepath.Join(dir, file), []byte(value), 0); err != nil {
		return fmt.Errorf("cgroup %s: %w", file, err)
	}
	return nil
}

// readCgroupKey returns the value of key in a flat keyed file ("oom_kill 3").
func readCgroupKey(path, key string) (int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	n, err := cgroupKey(data, key)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return n, nil
}

// cgroupKey is the value of key in the "key value" lines of a cgroup file's content.
func cgroupKey(data []byte, key string) (int64, error) {
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, " "); ok && k == key {
			return strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
	}
	return 0, fmt.Errorf("no %s", key)
}

// isBusy reports an rmdir refused because the cgroup still holds tasks.
func isBusy(err error) bool { return errors.Is(err, syscall.EBUSY) }
