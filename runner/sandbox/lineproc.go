package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kothd/kothd/engine"
)

// LineProc is a long-lived bot process that speaks one JSON line per request on
// stdin/stdout. It keeps the tail of stderr for the participant's diagnostics.
type LineProc struct {
	Proc   *Process
	stdin  io.WriteCloser
	lines  chan lineOrErr
	stderr *tailBuffer
	Exited chan struct{}
	err    error // the process's exit error, valid after exited is closed
	// stop is the starting context's Done: a cancelled run (SIGTERM) does not wait out a
	// reply or a start-up allowance, it kills the process and moves on.
	stop <-chan struct{}
	// lastWrite is the last request line sent (send): the next one is written after it.
	lastWrite *PendingWrite
	// closed is closed by close: lines nobody will read (a bot that wrote extra lines to
	// the protocol's descriptor) are dropped then, instead of holding readLines for ever.
	closed    chan struct{}
	closeOnce sync.Once
	ReadDone  chan struct{} // closed when readLines returns
	// direct: the command is the bot's own process (sandbox none), not bwrap's.
	direct bool
	// The sandbox's CPU time charged to budgets so far, and when it was last read
	// (pywatch.go; guarded by the owner's lock).
	CPUCharged time.Duration
	CPUReadAt  time.Time
}

// Alive reports whether the process has not exited yet.
func (p *LineProc) Alive() bool {
	select {
	case <-p.Exited:
		return false
	default:
		return true
	}
}

// botPid is the pid of the bot's own first process (the harness), as the daemon sees it;
// 0 when unknown (a sandbox without cgroups, or before killStrays has looked).
func (p *LineProc) botPid() int {
	if p.direct && p.Proc.Cmd.Process != nil {
		return p.Proc.Cmd.Process.Pid
	}
	return p.Proc.BotPid()
}

// DataBytes is the private writable memory of the bot's first process (VmData, what
// RLIMIT_DATA bounds), as the host reads it; ok is false when the host cannot tell.
func (p *LineProc) DataBytes() (int64, bool) {
	pid := p.botPid()
	if pid <= 0 {
		return 0, false
	}
	kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(procStatus(pid, "VmData"), "kB")), 10, 64)
	return kb << 10, err == nil
}

// cancelled is the fault of a call cut short because the run was cancelled.
func (p *LineProc) cancelled() *engine.Fault {
	p.Kill()
	return &engine.Fault{Outcome: engine.HostFault, Detail: "run cancelled", ProcessDied: true}
}

type lineOrErr struct {
	line []byte
	err  error
}

// StartLineProc starts spec in the sandbox. maxLine bounds one reply line: a bot that
// prints more is cut off with OutputLimit.
func StartLineProc(ctx context.Context, sb Sandbox, spec ProcSpec) (*LineProc, error) {
	proc, err := sb.Command(ctx, spec)
	if err != nil {
		return nil, err
	}
	cmd := proc.Cmd
	p := &LineProc{Proc: proc, lines: make(chan lineOrErr, 1), stderr: NewTailBuffer(4096), Exited: make(chan struct{}), stop: ctx.Done(),
		closed: make(chan struct{}), ReadDone: make(chan struct{})}
	_, p.direct = sb.(Unsandboxed)
	cmd.Stderr = p.stderr
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		proc.Release()
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		proc.Release()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		proc.Release()
		return nil, fmt.Errorf("start %s in sandbox %s: %w", spec.Argv[0], sb.Name(), err)
	}
	maxLine := spec.Limits.OutputBytes
	if maxLine <= 0 {
		maxLine = 16 << 20
	}
	go p.readLines(stdout, int(maxLine))
	go func() {
		p.err = cmd.Wait()
		// The sandbox's cgroup goes with its process; its OOM count and CPU time stay
		// readable for classifyExit and cpuTime.
		proc.releaseCgroup()
		close(p.Exited)
	}()
	return p, nil
}

// CPUTime is the CPU time used so far by the process and everything it started (the
// sandbox's cgroup); ok is false without cgroups.
func (p *LineProc) CPUTime() (time.Duration, bool) { return p.Proc.CPU() }

var errLineTooLong = errors.New("reply line too long")

func (p *LineProc) readLines(r io.Reader, maxLine int) {
	defer close(p.ReadDone)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		var line []byte
		for {
			chunk, isPrefix, err := br.ReadLine()
			if err != nil {
				p.hand(lineOrErr{err: err})
				return
			}
			line = append(line, chunk...)
			if len(line) > maxLine {
				p.hand(lineOrErr{err: errLineTooLong})
				return
			}
			if !isPrefix {
				break
			}
		}
		if !p.hand(lineOrErr{line: line}) {
			return
		}
	}
}

// hand passes a line to roundTrip; false once the process is closed (nobody will read it).
func (p *LineProc) hand(l lineOrErr) bool {
	select {
	case p.lines <- l:
		return true
	case <-p.closed:
		return false
	}
}

// RoundTrip writes one request line and waits for one reply line until the deadline.
func (p *LineProc) RoundTrip(req []byte, deadline time.Duration) ([]byte, *engine.Fault) {
	return Receive(p, p.Send(append(req, '\n')), deadline, false)
}

// Ask is a round trip that the end of the starting context does not cut short: a last
// word from a process whose run is over (pyclass's stats line, asked as its pool closes).
// ok is false when there is no reply line within the deadline (the process is then killed)
// or the process ended first.
func (p *LineProc) Ask(req []byte, deadline time.Duration) (line []byte, ok bool) {
	w := p.Send(append(req, '\n'))
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	select {
	case <-w.done:
		if w.err != nil {
			return nil, false
		}
	case <-timer.C:
		p.Kill()
		return nil, false
	}
	select {
	case l := <-p.lines:
		return l.line, l.err == nil
	case <-timer.C:
		p.Kill()
		return nil, false
	}
}

// PendingWrite is a request line being written to the process.
type PendingWrite struct {
	done chan struct{}
	err  error // valid once done is closed
}

// Send starts writing req (one or more whole lines) to the process's stdin, after every
// line sent before it, and returns at once. A write is never waited for without a deadline
// (receive): a bot that stopped itself (SIGSTOP) never drains its stdin, and a request
// larger than the pipe buffer would block for ever. req must stay untouched until the write
// is done.
func (p *LineProc) Send(req []byte) *PendingWrite {
	w := &PendingWrite{done: make(chan struct{})}
	before := p.lastWrite
	p.lastWrite = w
	go func() {
		defer close(w.done)
		if before != nil {
			<-before.done
		}
		_, w.err = p.stdin.Write(req)
	}()
	return w
}

// Receive waits, until the deadline, for the write w to end and then for one reply line.
// After a fault the process is dead or killed (a blocked write then fails and its goroutine
// ends). A deadline that is not firm moves on while the host keeps the bot from a CPU
// (runqueue.go); a firm one (a budget's end) does not.
func Receive(p *LineProc, w *PendingWrite, deadline time.Duration, firm bool) ([]byte, *engine.Fault) {
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	// A look before the deadline, the bot's wait for a CPU is noted (runqueue.go).
	sample := time.NewTimer(deadline - lookFor(deadline))
	defer sample.Stop()
	if firm {
		sample.Stop()
	}
	select {
	case <-w.done:
		if w.err != nil {
			return nil, p.died("stdin closed")
		}
	case <-p.stop:
		return nil, p.cancelled()
	case <-timer.C:
		p.Kill()
		return nil, &engine.Fault{Outcome: engine.Timeout, Detail: fmt.Sprintf("did not read its request within %s; process killed", deadline), ProcessDied: true}
	}
	var starved *starvation
	for {
		select {
		case l := <-p.lines:
			if l.err == errLineTooLong {
				p.Kill()
				return nil, &engine.Fault{Outcome: engine.OutputLimit, Detail: "reply larger than the output limit", ProcessDied: true}
			}
			if l.err != nil {
				return nil, p.died("stdout closed")
			}
			return l.line, nil
		case <-p.stop:
			return nil, p.cancelled()
		case <-sample.C:
			starved = p.startStarvation(deadline)
			continue
		case <-timer.C:
			// A bot the host kept from a CPU gets its wait back (runqueue.go).
			if look := starved.next(); look > 0 {
				timer.Reset(look)
				continue
			}
			p.Kill()
			detail := fmt.Sprintf("no reply within %s; process killed", deadline)
			if starved != nil && starved.extended > 0 {
				detail = fmt.Sprintf("no reply within %s (%s more while the host kept it from a CPU); process killed", deadline, starved.extended)
			}
			return nil, &engine.Fault{Outcome: engine.Timeout, Detail: detail, ProcessDied: true}
		}
	}
}

// died turns an unexpected end of the pipe into a fault, waiting briefly for the exit
// status so a memory or CPU limit is named as such.
func (p *LineProc) died(what string) *engine.Fault {
	select {
	case <-p.Exited:
	case <-time.After(2 * time.Second):
		p.Kill()
		<-p.Exited
	}
	kill := p.Proc.oomKilled()
	o := classifyKilled(p.Proc, p.err, p.stderr.String(), kill)
	if kill.killed() && (o == engine.HostFault || o == engine.MemoryLimit) {
		what += "; " + kill.detail()
	}
	// A memory fault the kernel's kill at the bot's own bounds shows is the host's own
	// sight (engine.Fault.AtLimit); one read from the bot's last words is only its word.
	return &engine.Fault{Outcome: o, Detail: fmt.Sprintf("%s (%v); stderr: %s", what, p.err, p.stderr.String()), ProcessDied: true,
		AtLimit: o == engine.MemoryLimit && kill.atLimit()}
}

// exitOutcome classifies how a bot process ended from its wait status alone (see
// classifyExit for what the runner can add from the sandbox and the bot's stderr).
//
// bwrap cannot die of the signal that killed its command, so it exits with 128+n
// instead, as a shell does; both forms are read alike. A bot that exits with such a
// status itself only misnames its own fault.
func exitOutcome(err error) engine.Outcome {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return engine.Crash
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	if !ok {
		return engine.Crash
	}
	return waitOutcome(ws.Signaled(), ws.ExitStatus(), ws.Signal())
}

func (p *LineProc) Kill() {
	KillGroup(p.Proc.Cmd)
}

// Close ends the process: stdin closed (a polite harness exits), then the group killed.
func (p *LineProc) Close() {
	p.closeOnce.Do(func() { close(p.closed) })
	_ = p.stdin.Close()
	select {
	case <-p.Exited:
	case <-time.After(200 * time.Millisecond):
	}
	p.Kill()
	<-p.Exited
	// The process has been waited for: what its sandbox holds goes (the exit status
	// report stays readable for a died that comes later).
	p.Proc.Release()
}

// tailBuffer keeps the last n bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	n   int
	buf []byte
}

func NewTailBuffer(n int) *tailBuffer { return &tailBuffer{n: n} }

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > t.n {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.n:]...)
	}
	return len(b), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// Truncate cuts s to n bytes, marking the cut.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
