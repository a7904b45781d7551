package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/kothd/kothd/engine"
)

// SyncLineProc is a LineProc spoken to on the caller's goroutine, for a relay whose every
// request is one line to one process and one line back (the stdio protocol's bots, a
// referee's requests). Its pipes block (the runtime's poller does not drive them), and the
// caller itself writes the request and reads the reply: a line costs its two system calls,
// where LineProc's poller pipes, writer goroutine and reader goroutine cost an epoll wait,
// a goroutine's start and two thread wake-ups besides (two thirds of kothd's CPU per
// request in the referee's benchmark, engine/referee/bench_test.go). The deadline is a
// timer that kills the process, which ends its pipes and the blocked call with them; it
// moves on while the host keeps the bot from a CPU as Receive's does (runqueue.go).
type SyncLineProc struct {
	*LineProc
	out     *bufio.Reader
	outFile *os.File
	maxLine int
	stopped atomic.Bool // the context was cancelled
	unwatch func() bool // ends the context's watch
}

// BlockingPipe is a pipe whose ends block, close-on-exec.
func BlockingPipe() (r, w *os.File, err error) {
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
		return nil, nil, fmt.Errorf("pipe: %w", err)
	}
	return os.NewFile(uintptr(fds[0]), "|0"), os.NewFile(uintptr(fds[1]), "|1"), nil
}

// StartSyncLineProc starts spec in the sandbox (see StartLineProc). A cancelled ctx kills
// the process.
func StartSyncLineProc(ctx context.Context, sb Sandbox, spec ProcSpec) (*SyncLineProc, error) {
	proc, err := sb.Command(ctx, spec)
	if err != nil {
		return nil, err
	}
	inR, inW, err := BlockingPipe()
	if err != nil {
		proc.Release()
		return nil, err
	}
	outR, outW, err := BlockingPipe()
	if err != nil {
		inR.Close()
		inW.Close()
		proc.Release()
		return nil, err
	}
	cmd := proc.Cmd
	p := &LineProc{Proc: proc, stderr: NewTailBuffer(4096), Exited: make(chan struct{}), stop: ctx.Done(),
		closed: make(chan struct{}), ReadDone: make(chan struct{}), stdin: inW}
	close(p.ReadDone) // no reader goroutine: the caller reads
	_, p.direct = sb.(Unsandboxed)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, p.stderr
	err = cmd.Start()
	inR.Close() // the child's ends: it has its own copies
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		proc.Release()
		return nil, fmt.Errorf("start %s in sandbox %s: %w", spec.Argv[0], sb.Name(), err)
	}
	maxLine := spec.Limits.OutputBytes
	if maxLine <= 0 {
		maxLine = 16 << 20
	}
	s := &SyncLineProc{LineProc: p, out: bufio.NewReaderSize(outR, 64<<10), outFile: outR, maxLine: int(maxLine)}
	go func() {
		p.err = cmd.Wait()
		proc.releaseCgroup()
		close(p.Exited)
	}()
	s.unwatch = context.AfterFunc(ctx, func() {
		s.stopped.Store(true)
		p.Kill()
	})
	return s, nil
}

// Exchange writes req (one line, without its newline; nil: nothing) and reads one reply
// line until the deadline. A firm deadline (a budget's end, a host program's) does not move
// while the host keeps the process from a CPU. The reply is valid until the next Exchange.
// After a fault the process is dead or killed.
func (s *SyncLineProc) Exchange(req []byte, deadline time.Duration, firm bool) ([]byte, *engine.Fault) {
	var mu sync.Mutex
	var expired bool
	var starved *starvation
	look := deadline
	if !firm {
		look = deadline - lookFor(deadline)
	}
	sampled := firm
	var t *time.Timer
	mu.Lock()
	t = time.AfterFunc(look, func() {
		mu.Lock()
		defer mu.Unlock()
		if !sampled { // a look before the deadline: note the wait for a CPU (runqueue.go)
			sampled = true
			starved = s.startStarvation(deadline)
			t.Reset(deadline - look)
			return
		}
		if l := starved.next(); l > 0 {
			t.Reset(l)
			return
		}
		expired = true
		s.Kill()
	})
	mu.Unlock()
	defer t.Stop()
	if req != nil {
		if _, err := s.stdin.Write(append(req, '\n')); err != nil {
			return nil, s.failed(&mu, &expired, starved, deadline, "did not read its request")
		}
	}
	var got []byte
	for {
		chunk, err := s.out.ReadSlice('\n')
		if len(got)+len(chunk) > s.maxLine {
			s.Kill()
			return nil, &engine.Fault{Outcome: engine.OutputLimit, Detail: "reply larger than the output limit", ProcessDied: true}
		}
		switch {
		case err == nil && got == nil:
			return chunk[:len(chunk)-1], nil
		case err == nil:
			return append(got, chunk[:len(chunk)-1]...), nil
		case errors.Is(err, bufio.ErrBufferFull):
			got = append(got, chunk...)
		default:
			return nil, s.failed(&mu, &expired, starved, deadline, "stdout closed")
		}
	}
}

// failed is the fault of an exchange whose pipe ended: the deadline's, the run's
// cancellation, or how the process died.
func (s *SyncLineProc) failed(mu *sync.Mutex, expired *bool, starved *starvation, deadline time.Duration, what string) *engine.Fault {
	mu.Lock()
	timedOut := *expired
	mu.Unlock()
	switch {
	case s.stopped.Load():
		return s.cancelled()
	case timedOut:
		detail := fmt.Sprintf("no reply within %s; process killed", deadline)
		if starved != nil && starved.extended > 0 {
			detail = fmt.Sprintf("no reply within %s (%s more while the host kept it from a CPU); process killed", deadline, starved.extended)
		}
		return &engine.Fault{Outcome: engine.Timeout, Detail: detail, ProcessDied: true}
	}
	return s.died(what)
}

// RoundTrip is Exchange with a deadline that moves while the host keeps the process from a
// CPU (LineProc's, whose reader this process has not).
func (s *SyncLineProc) RoundTrip(req []byte, deadline time.Duration) ([]byte, *engine.Fault) {
	return s.Exchange(req, deadline, false)
}

// Close ends the process (see LineProc.Close) and its pipes.
func (s *SyncLineProc) Close() {
	s.unwatch()
	s.LineProc.Close()
	s.outFile.Close()
}
