package sandbox

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Bot directories on a filesystem of their own. A bot that writes (the argv and dirfiles
// protocols) gets its run's copy of its directory on a tmpfs sized to its allowance
// (Limits.DirMB) with a bounded number of inodes, so a write past the allowance fails
// inside the sandbox with ENOSPC while the bot runs, whatever the call (write, fallocate
// with or without FALLOC_FL_KEEP_SIZE, a million empty files); the host's disk never sees
// it. tmpfs pages are charged to the writer's memory cgroup: the bot's sandbox.
//
// The mounts live in the mount namespace of a small helper, the mount holder
// (launch/botfs.py), not in the daemon's: a daemon run unprivileged (systemd DynamicUser)
// cannot mount anything where it lives, but can in a user namespace of its own, and the
// kernel removes the holder's mounts when it dies, so a killed daemon leaves none behind.
// The daemon reaches a mount through /proc/<holder>/root/<path> (a bounded directory's
// "view", which is what the run's bots get as their Dir), and starts each sandbox inside
// the holder's namespaces with nsenter(1), where bwrap binds the mount at <path> as it
// would bind a plain directory (bwrap.go). Nothing else of the sandbox changes.
//
// Where no holder can be started (no nsenter, no user namespaces, sandbox none), bot
// directories are plain copies and the allowance is only checked after each decision
// (diskuse.go), which the daemon logs at error level.

//go:embed launch/botfs.py
var botfsSource string

// inodeBytes is the least an entry of any kind is charged: one filesystem block. An empty
// file, a directory or a short symbolic link uses no data block of its own but does use
// an inode and a directory entry, and 400,000 of them are not free. A bounded directory
// gets one inode per inodeBytes of its allowance (4,096 for 16 MB, about 4 MB of kernel
// memory), which is what the post-decision walk charged them.
const inodeBytes = 4096

// botfsReplyTimeout bounds one request to the holder, which only mounts and unmounts.
const botfsReplyTimeout = 30 * time.Second

// mountHolder is one running holder.
type mountHolder struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan []byte // its stdout, line by line; closed when it ends
	user  bool        // it made a user namespace (the daemon is not root)
	mu    sync.Mutex  // one request at a time
	dead  bool
}

// startMountHolder starts the holder with python. root says whether the daemon is root
// (a mount namespace suffices) or not (a user namespace too).
func startMountHolder(python string, root bool) (*mountHolder, error) {
	mode := "user"
	if root {
		mode = "root"
	}
	cmd := exec.Command(python, "-I", "-S", "-c", botfsSource, mode)
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LANG=C.UTF-8"}
	// Its own process group, so no kill of a bot's group reaches it; it dies with the
	// daemon (and exits when its stdin closes). It is never reaped before close, so its
	// pid, which nsenter and the views name, cannot be reused while a view is in use.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr := NewTailBuffer(1024)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the mount holder: %w", err)
	}
	h := &mountHolder{cmd: cmd, in: in, lines: make(chan []byte, 1), user: !root}
	go func() {
		r := bufio.NewReader(out)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				close(h.lines)
				return
			}
			h.lines <- line
		}
	}()
	var hello struct {
		Hello int    `json:"hello"`
		Error string `json:"error"`
	}
	if err := h.read(&hello); err != nil || hello.Hello != 1 {
		h.close()
		if err == nil {
			err = errors.New(hello.Error)
		}
		return nil, fmt.Errorf("the mount holder cannot make its namespace: %v%s", err, stderrNote(stderr))
	}
	return h, nil
}

// read waits for the holder's next line.
func (h *mountHolder) read(v any) error {
	select {
	case line, ok := <-h.lines:
		if !ok {
			h.dead = true
			return errors.New("the mount holder exited")
		}
		return json.Unmarshal(line, v)
	case <-time.After(botfsReplyTimeout):
		h.dead = true
		return fmt.Errorf("the mount holder did not answer within %s", botfsReplyTimeout)
	}
}

// request sends one request and returns the holder's error, if any.
func (h *mountHolder) request(req map[string]any) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.dead {
		return errors.New("the mount holder is gone")
	}
	line, _ := json.Marshal(req)
	if _, err := h.in.Write(append(line, '\n')); err != nil {
		h.dead = true
		return fmt.Errorf("the mount holder: %w", err)
	}
	var rep struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	}
	if err := h.read(&rep); err != nil {
		return err
	}
	if !rep.OK {
		return errors.New(rep.Error)
	}
	return nil
}

// alive reports whether the holder can still serve (its namespace exists).
func (h *mountHolder) alive() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.dead {
		return false
	}
	// Never reaped (see startMountHolder), so the pid is still its own; once it has
	// died, even as a zombie, it has no mount namespace left to enter.
	if _, err := os.Stat(fmt.Sprintf("/proc/%d/ns/mnt", h.cmd.Process.Pid)); err != nil {
		h.dead = true
	}
	return !h.dead
}

// close ends the holder; its mounts go with it.
func (h *mountHolder) close() {
	h.mu.Lock()
	h.dead = true
	h.mu.Unlock()
	_ = h.in.Close()
	_ = h.cmd.Process.Kill()
	_ = h.cmd.Wait()
}

// root is the prefix through which the daemon sees the holder's mount namespace.
func (h *mountHolder) root() string { return "/proc/" + strconv.Itoa(h.cmd.Process.Pid) + "/root" }

// nsenter is the command prefix that runs a program inside the holder's namespaces. An
// unprivileged daemon enters its user namespace too (the mount namespace belongs to it)
// and keeps its own ids (--preserve-credentials): bwrap then runs unprivileged as before.
func (h *mountHolder) nsenter(path string) []string {
	pid := strconv.Itoa(h.cmd.Process.Pid)
	if h.user {
		return []string{path, "--user=/proc/" + pid + "/ns/user", "--mount=/proc/" + pid + "/ns/mnt", "--preserve-credentials", "--"}
	}
	return []string{path, "--mount=/proc/" + pid + "/ns/mnt", "--"}
}

// boundDir is one bot directory on a tmpfs of its own.
type boundDir struct {
	holder *mountHolder
	host   string // the mount point, in the holder's namespace (and an empty directory in the daemon's)
	view   string // the same directory as the daemon reaches it: holder.root() + host
	bytes  int64
	inodes int64
}

// boundDirs holds the bounded directories by view, for the sandbox and the allowance
// check to find (bwrap.go, diskuse.go).
var boundDirs = struct {
	sync.Mutex
	m map[string]*boundDir
}{m: map[string]*boundDir{}}

// boundDirOf returns the bounded directory holding dir (its view or under it), or nil.
func boundDirOf(dir string) *boundDir {
	if !strings.HasPrefix(dir, "/proc/") {
		return nil // the only place views live: no lock for the common case
	}
	boundDirs.Lock()
	defer boundDirs.Unlock()
	for d := dir; d != "/" && d != "."; d = filepath.Dir(d) {
		if bd := boundDirs.m[d]; bd != nil {
			return bd
		}
	}
	return nil
}

// hostPath is dir (the view or a path under it) as seen inside the holder's namespace.
func (bd *boundDir) hostPath(dir string) string {
	if dir == bd.view {
		return bd.host
	}
	return bd.host + strings.TrimPrefix(dir, bd.view)
}

// usage reads the filesystem's use: bytes and inodes in use, and whether it is full
// (no block or no inode left: the bot's next write or file fails).
func (bd *boundDir) usage() (used, inodes int64, full bool, err error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(bd.view, &st); err != nil {
		return 0, 0, false, err
	}
	used = int64(st.Blocks-st.Bfree) * st.Bsize
	inodes = int64(st.Files - st.Ffree)
	return used, inodes, st.Bavail == 0 || st.Ffree == 0, nil
}

// BotDir makes dst, a bot's writable directory for one run, from the prepared directory
// src (CopyBotDir), and returns the path the run uses for it and a function that removes
// what it made beyond dst itself (call it before removing dst).
//
// When sb can hold the directory on a filesystem of its own (bwrap with a mount holder)
// and lim.DirMB is set, the copy is made on a tmpfs of lim.DirMB MiB and one inode per 4
// KiB of that: dir is then the holder's view of dst, not dst. The prepared files count
// against the allowance as they always have; a prepared directory bigger than it gets
// its own size plus 1 MiB (and 256 inodes), so the bot still runs, with little room to
// write. Otherwise dir is dst, a plain copy, and the allowance is checked after each
// decision only (bounded reports false).
func BotDir(sb Sandbox, dst, src string, lim Limits) (dir string, bounded bool, release func(), err error) {
	b, _ := sb.(*Bwrap)
	if lim.DirMB <= 0 || b == nil || b.botfs == nil {
		return dst, false, func() {}, CopyBotDir(dst, src)
	}
	h, err := b.mountHolder()
	if err != nil {
		return "", false, nil, fmt.Errorf("bot directory on a filesystem of its own: %w", err)
	}
	bytes := int64(lim.DirMB) << 20
	inodes := bytes / inodeBytes
	if used, entries := treeUse(src); used > bytes || entries > inodes {
		bytes = max(bytes, used+1<<20)
		inodes = max(inodes, entries+256)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return "", false, nil, fmt.Errorf("bot directory: %w", err)
	}
	// The view must name no symbolic link: an absolute one met under /proc/<holder>/root
	// would be followed from the daemon's root, where the mount is not (systemd's
	// StateDirectory under DynamicUser is such a link).
	host, err := filepath.EvalSymlinks(dst)
	if err == nil {
		host, err = filepath.Abs(host)
	}
	if err != nil {
		return "", false, nil, fmt.Errorf("bot directory: %w", err)
	}
	if err := h.request(map[string]any{"op": "mount", "path": host, "bytes": bytes, "inodes": inodes}); err != nil {
		return "", false, nil, fmt.Errorf("mount a %d MiB tmpfs for a bot directory at %s: %w", bytes>>20, host, err)
	}
	bd := &boundDir{holder: h, host: host, view: h.root() + host, bytes: bytes, inodes: inodes}
	boundDirs.Lock()
	boundDirs.m[bd.view] = bd
	boundDirs.Unlock()
	release = func() {
		boundDirs.Lock()
		delete(boundDirs.m, bd.view)
		boundDirs.Unlock()
		// Detached: a process still holding a file there keeps it until it lets go.
		_ = h.request(map[string]any{"op": "umount", "path": host})
	}
	if err := CopyBotDir(bd.view, src); err != nil {
		release()
		return "", false, nil, err
	}
	return bd.view, true, release, nil
}

// mountHolder returns the sandbox's holder, starting a new one if the last has died.
func (b *Bwrap) mountHolder() (*mountHolder, error) {
	b.botfs.mu.Lock()
	defer b.botfs.mu.Unlock()
	if b.botfs.h != nil && b.botfs.h.alive() {
		return b.botfs.h, nil
	}
	h, err := startMountHolder(b.botfs.python, b.root)
	if err != nil {
		return nil, err
	}
	b.botfs.h = h
	return h, nil
}

// botfsState is what a Bwrap keeps to bound bot directories (nil: it cannot).
type botfsState struct {
	nsenter string // nsenter(1), which starts a sandbox in the holder's namespaces
	python  string // runs the holder
	mu      sync.Mutex
	h       *mountHolder
}

// enableBotfs tries bounded directories end to end: a holder, a tmpfs of 1 MiB, a sandbox
// started into it that writes a file and then fails to write past the size. On success
// BotDir bounds the bots' directories from then on; the error says why not.
func (b *Bwrap) enableBotfs(python string) error {
	nsenter, err := exec.LookPath("nsenter")
	if err != nil {
		return fmt.Errorf("nsenter (util-linux) not found: %w", err)
	}
	b.botfs = &botfsState{nsenter: nsenter, python: python}
	if err := b.probeBotfs(); err != nil {
		b.botfs = nil
		return err
	}
	return nil
}

func (b *Bwrap) probeBotfs() error {
	tmp, err := os.MkdirTemp("", "kothd-botfs-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, "src")
	if err := os.Mkdir(src, 0o755); err != nil {
		return err
	}
	dir, bounded, release, err := BotDir(b, filepath.Join(tmp, "bot"), src, Limits{DirMB: 1})
	if err != nil {
		return err
	}
	defer release()
	if !bounded {
		return errors.New("the directory was not bounded")
	}
	// 512 KiB fit, 2 MiB more do not: dd reports ENOSPC and exits 1.
	argv := []string{"/bin/sh", "-c", "head -c 524288 /dev/zero > a && ! head -c 2097152 /dev/zero > b 2>/dev/null && echo held"}
	proc, err := b.Command(context.Background(), ProcSpec{Dir: dir, Argv: argv, Limits: Limits{MemoryMB: 256, Procs: 16}})
	if err != nil {
		return err
	}
	defer proc.Release()
	out, err := proc.Cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "held" {
		return fmt.Errorf("a sandbox over a 1 MiB bounded directory: %v: %q", err, Truncate(string(out), 300))
	}
	if st, err := os.Stat(filepath.Join(dir, "a")); err != nil || st.Size() != 524288 {
		return fmt.Errorf("the daemon does not see what the sandbox wrote in a bounded directory (%v)", err)
	}
	return nil
}

// treeUse is what the tree under dir uses by the walk's measure (dirBytes) and how many
// entries it holds.
func treeUse(dir string) (bytes, entries int64) {
	_ = filepath.WalkDir(dir, func(string, os.DirEntry, error) error {
		entries++
		return nil
	})
	return dirBytes(dir, 1<<62), entries
}
