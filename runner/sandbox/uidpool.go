package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// A root daemon runs each bot directory's sandboxes as a host uid (and gid) of their own,
// from a pool. One uid for every bot would make every per-user count of the kernel a
// channel between sandboxes and a lever of one bot against the others: RLIMIT_NPROC (one
// bot's fork bomb would starve the others' forks), pipe buffer pages, epoll watches,
// keyrings. These used to be split by a user namespace per sandbox (`unshare --user`
// inside the sandbox), which the seccomp filter now forbids a bot: see seccomp.go.
//
// Sandboxes of the same directory (one bot's launchers, its restarts) share a uid: they
// are the same bot, and the directory can only be owned by one. A directory keeps its uid
// while any of its sandboxes' commands is alive (not yet garbage), and afterwards until
// the pool, handing out uids in turn, comes round to it again, so a bot's files are
// rarely handed over anew.
//
// Other kothd processes on the host (a `kothd worker` or `kothd bench` beside the daemon,
// a second daemon) hand out the same pool: each uid a pool gives a live command is claimed
// host-wide with a lock on its byte of UIDClaimFile (the byte at the uid's offset: an open
// file description lock, which the kernel drops when the process dies), so two processes
// never run bots as one uid at the same time. One file, whatever the uids: a file per uid
// would leave tens of thousands of them in /run as a daemon hands the pool out in turn.
//
// A daemon that is not root cannot switch uids: its bots all run as its own uid (in a
// user namespace of bwrap's), the remaining limitation docs/trust.md names.

// Default pool: far above the uids of real users, systemd's dynamic users (61184–65519)
// and the usual container ranges' starts, below the 32-bit limit.
const (
	DefaultBotUIDBase  = 2_000_000_000
	DefaultBotUIDCount = 1 << 16
)

// botUIDs is the pool NewBwrap uses: SetBotUIDs.
var botUIDs = struct{ first, count int }{DefaultBotUIDBase, DefaultBotUIDCount}

// SetBotUIDs sets the pool of host uids the sandboxes a root daemon makes from now on run
// as (the config's bot_uid_first and bot_uid_count); zero keeps the default.
func SetBotUIDs(first, count int) {
	if first > 0 {
		botUIDs.first = first
	}
	if count > 0 {
		botUIDs.count = count
	}
}

// UIDClaimFile is where the bot uids in use on the host are claimed (see above): root's,
// in /run, a tmpfs that no sandbox binds.
const UIDClaimFile = "/run/kothd/bot-uids.lock"

type uidPool struct {
	base, count int
	// claims is the host's claim file at claimPath, opened by this pool; nil claims none
	// (tests of the pool alone).
	claims    *os.File
	claimPath string

	mu     sync.Mutex
	next   int            // offset of the next uid to try
	byDir  map[string]int // directory → its uid
	dirOf  map[int]string // uid → the directory that has it
	live   map[int]int    // uid → commands alive that run as it (each claimed while live)
	onFree func(uid int)  // tests: called when a command's hold ends
}

func newUIDPool(base, count int, claims *os.File) *uidPool {
	p := &uidPool{base: base, count: count, claims: claims, byDir: map[string]int{}, dirOf: map[int]string{}, live: map[int]int{}}
	if claims != nil {
		p.claimPath = claims.Name()
	}
	return p
}

// reopenIfReplaced opens the claim file again when the one held is no longer at its path
// (an admin or a tmpfiles rule cleared /run): locks on an unlinked file exclude no process
// that opens the path afresh. The uids the pool holds are claimed again on the new file.
// It runs at each claim, so a pool that claims nothing after the clearing leaves its uids
// unclaimed until it next does: the gap is a daemon's time between two bot starts.
// Callers hold p.mu.
func (p *uidPool) reopenIfReplaced() error {
	held, err1 := p.claims.Stat()
	now, err2 := os.Stat(p.claimPath)
	if err1 == nil && err2 == nil && os.SameFile(held, now) {
		return nil
	}
	f, err := openClaims(p.claimPath)
	if err != nil {
		return fmt.Errorf("claim file replaced, and opening it again failed: %w", err)
	}
	p.claims.Close() // drops the old file's locks
	p.claims = f
	for uid := range p.live {
		// Another process may have taken one meanwhile; the pool keeps it all the same
		// (its commands already run as it) and claims what it can.
		_, _ = p.lock(uid)
	}
	return nil
}

// openClaims opens the host's claim file at path, or says why it cannot be trusted: it
// must be a file of root's, in a directory of root's, that no one else can write, or
// another user could hold (or free) the claims.
func openClaims(path string) (*os.File, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if err := rootsOnly(os.Lstat(dir)); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	if err := rootsOnly(f.Stat()); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// rootsOnly says whether a file (or directory) is root's and writable by root alone.
func rootsOnly(st os.FileInfo, err error) error {
	if err != nil {
		return err
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok || sys.Uid != 0 || st.Mode().Perm()&0o022 != 0 || !(st.IsDir() || st.Mode().IsRegular()) {
		return fmt.Errorf("not root's alone (mode %s)", st.Mode())
	}
	return nil
}

// claim locks uid's byte of the claim file, unless another process (another open of the
// file) holds it. Callers hold p.mu.
func (p *uidPool) claim(uid int) (bool, error) {
	if p.claims == nil {
		return true, nil
	}
	if err := p.reopenIfReplaced(); err != nil {
		return false, err
	}
	return p.lock(uid)
}

// lock takes uid's byte of the claim file: false when another open of it holds the byte.
func (p *uidPool) lock(uid int) (bool, error) {
	switch err := p.setByte(uid, unix.F_WRLCK); {
	case err == nil:
		return true, nil
	case errors.Is(err, unix.EAGAIN), errors.Is(err, unix.EACCES):
		return false, nil
	default:
		return false, fmt.Errorf("claim bot uid %d: %w", uid, err)
	}
}

// unclaim frees uid's byte. Callers hold p.mu.
func (p *uidPool) unclaim(uid int) {
	if p.claims != nil {
		_ = p.setByte(uid, unix.F_UNLCK)
	}
}

// setByte sets the lock (F_WRLCK, F_UNLCK) on uid's byte of the claim file, at once.
func (p *uidPool) setByte(uid int, typ int16) error {
	lk := unix.Flock_t{Type: typ, Whence: io.SeekStart, Start: int64(uid), Len: 1}
	return unix.FcntlFlock(p.claims.Fd(), unix.F_OFD_SETLK, &lk)
}

// acquire returns the uid of dir's sandboxes, held until the Process made with it is
// released (Process.Release calls release). It fails only when every uid of the pool is
// held by a live process.
func (p *uidPool) acquire(dir string) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if uid, ok := p.byDir[dir]; ok {
		if p.live[uid] > 0 {
			p.live[uid]++
			return uid, nil
		}
		// Idle, so unclaimed: another process may have taken it meanwhile.
		ok, err := p.claim(uid)
		if err != nil {
			return 0, err
		}
		if ok {
			p.live[uid]++
			return uid, nil
		}
		delete(p.byDir, dir)
		delete(p.dirOf, uid)
	}
	for range p.count {
		uid := p.base + p.next
		p.next = (p.next + 1) % p.count
		if p.live[uid] > 0 {
			continue
		}
		ok, err := p.claim(uid)
		if err != nil {
			return 0, err
		}
		if !ok {
			continue
		}
		if old, ok := p.dirOf[uid]; ok {
			delete(p.byDir, old)
		}
		p.byDir[dir], p.dirOf[uid] = uid, dir
		p.live[uid]++
		return uid, nil
	}
	return 0, fmt.Errorf("all %d bot uids from %d are in use", p.count, p.base)
}

// release ends one hold of uid.
func (p *uidPool) release(uid int) {
	p.mu.Lock()
	if p.live[uid]--; p.live[uid] <= 0 {
		delete(p.live, uid)
		p.unclaim(uid)
	}
	f := p.onFree
	p.mu.Unlock()
	if f != nil {
		f(uid)
	}
}

// mappedRange reports whether the uids [base, base+count) all exist in the daemon's user
// namespace (/proc/self/uid_map and gid_map): a root daemon in a container may have only
// a few thousand, and setpriv would fail on an unmapped one.
func mappedRange(base, count int) bool {
	for _, f := range []string{"/proc/self/uid_map", "/proc/self/gid_map"} {
		if !rangeIn(f, base, count) {
			return false
		}
	}
	return true
}

func rangeIn(mapFile string, base, count int) bool {
	f, err := os.Open(mapFile)
	if err != nil {
		return false
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) != 3 {
			continue
		}
		inside, err1 := strconv.ParseInt(fields[0], 10, 64)
		n, err2 := strconv.ParseInt(fields[2], 10, 64)
		if err1 == nil && err2 == nil && int64(base) >= inside && int64(base)+int64(count) <= inside+n {
			return true
		}
	}
	return false
}

// uidsName says which uids bots run as, for the log.
func (b *Bwrap) uidsName() string {
	switch {
	case !b.root:
		return "the daemon's"
	case b.uids == nil:
		return strconv.Itoa(b.UID)
	}
	return fmt.Sprintf("%d-%d", b.uids.base, b.uids.base+b.uids.count-1)
}
