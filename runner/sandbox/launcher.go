package sandbox

import (
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/kothd/kothd/engine"
)

// A Launcher runs one-shot bot processes (the argv and dirfiles protocols) without building
// a sandbox per decision. Building a bwrap sandbox costs tens of milliseconds, more than
// most bots take to answer; a Bank Heist tournament launches bots tens of thousands of
// times. So a launcher process is started once per bot through the bot's Sandbox (inside
// the bot's sandbox, with its limits and scrubbed environment) and spawns each decision's
// process on request, reporting how it ended over JSON lines (the lineProc pattern).
//
// The launcher program is launch/launcher.py, run by LauncherPython. Python because the
// pyclass protocol already requires a Python 3 visible in every sandbox, and because it
// has fork, exec, setrlimit, poll and (through ctypes) unshare and prctl in its standard
// library; re-executing the kothd binary instead would need that binary bound into every
// sandbox (a bwrap change) and would not exist in package tests. Its one start per bot
// per run costs about as much as one sandboxed launch. The source is sent as the first
// line of the launcher's stdin rather than installed as a file, so nothing is written to
// the bot's directory and the bot cannot replace the launcher between restarts.
//
// The launcher is pid 1 of a PID namespace of its own inside the sandbox (see
// launcher.py): when a decision ends, every process it started is killed, and the bot can
// neither signal the launcher nor forge its report. What a decision sees differs from a
// fresh sandbox only in what persists between decisions of the same bot: /tmp, like the
// bot's directory, is kept for the launcher's life.
//
// Nothing a bot does can hang the runner: every request has a hard deadline (the
// decision's timeout plus launcherSlack); on breach, or if the launcher dies, its whole
// sandbox is killed, the decision is the bot's fault, and a new launcher serves the next
// one. A launcher that cannot start at all is a HostFault.
type Launcher struct {
	sb   Sandbox
	spec ProcSpec
	// isolation is passed to the launcher: "" lets it choose (PID namespaces when the
	// host allows them), "group" forces the process-group fallback (tests).
	isolation string
	// python runs the launcher program (LauncherPython); slack replaces launcherSlack
	// when set (tests).
	python string
	slack  time.Duration
	// noForks turns the fork server off for this launcher (tests compare both ways).
	noForks bool

	mu      sync.Mutex
	idle    []*launcherProc
	closed  bool
	seq     atomic.Uint64
	started atomic.Int64
}

// LauncherPython is the interpreter that runs the launcher program inside the sandbox.
var LauncherPython = "/usr/bin/python3"

//go:embed launch/launcher.py
var launcherSource string

// The fork servers (launch/forkserver.py for Python 3, launch/forkserver2.py its 2.7
// twin, each followed by what they share, launch/forkahead.py, and its start) and the
// launcher's client of them (launch/forkclient.py): a Python bot's decisions fork an idle
// interpreter instead of starting one. launcherProgram puts them before the launcher's
// source.
var (
	//go:embed launch/forkserver.py
	forkServerOwn string
	//go:embed launch/forkserver2.py
	forkServer2Own string
	//go:embed launch/forkahead.py
	forkAheadSource string
	//go:embed launch/forkclient.py
	forkClientSource string

	forkServerSource  = forkServerProgram(forkServerOwn)
	forkServer2Source = forkServerProgram(forkServer2Own)
)

// forkServerProgram is a fork server's whole source: its own, the shared loop, its start.
func forkServerProgram(own string) string {
	return own + "\n\n" + forkAheadSource + "\n\nbecome(*serve())\n"
}

// LauncherForkServer turns the fork server on (the default) or off for the launchers
// started from then on: off, every decision starts its process afresh.
var LauncherForkServer = true

// launcherProgram is the source the launcher runs: the fork servers' sources as strings,
// its client, the launcher.
func launcherProgram() string {
	fs, _ := json.Marshal(forkServerSource)
	fs2, _ := json.Marshal(forkServer2Source)
	return "FORKSERVER_SOURCE = " + string(fs) + "\nFORKSERVER2_SOURCE = " + string(fs2) + "\n" + forkClientSource + "\n" + launcherSource
}

// launcherBoot reads the launcher's source from the first line of stdin and runs it.
const launcherBoot = `import json,sys;exec(compile(json.loads(sys.stdin.buffer.readline()),"kothd-launcher","exec"))`

const (
	// launcherSlack is how much longer than a decision's timeout the runner waits for the
	// launcher's report before it kills the sandbox: the launcher itself enforces the
	// timeout, then kills and reaps the decision's processes.
	launcherSlack = 5 * time.Second
	// launcherStartTimeout bounds a launcher's start (sandbox, interpreter, namespaces).
	launcherStartTimeout = 30 * time.Second
	// launcherProcs is what the launcher adds to the sandbox's process count: its first
	// process, the server (pid 1 of its namespace) and the fork server.
	launcherProcs = 3
	// launcherFiles is the fewest descriptors a launcher works with (a decision's pipes,
	// pidfd, protocol); a bot allowed fewer gets its own limit back on its process.
	launcherFiles = 32
)

// NewLauncher prepares the launcher of one bot; nothing starts until the first Run. spec
// is the bot's: Dir its directory, Argv its run command, Env and Limits as for RunArgv.
// Limits.CPUTime bounds each decision's processes; the other limits bound the sandbox.
func NewLauncher(sb Sandbox, spec ProcSpec) *Launcher {
	l := &Launcher{sb: sb, spec: spec, python: LauncherPython}
	// Bwrap binds the installation prefix of an interpreter named by absolute path
	// outside its usual binds (/opt/python3.12/bin/python3) when the sandbox's command
	// starts with it or is a launcher wrapping such a command (namedPrefixes), so the
	// launcher serves those bots too.
	return l
}

// Job is one decision: the arguments appended to the bot's command, its stdin (empty:
// /dev/null), its wall-clock limit (<= 0: 10s), and whether stdout is of no interest
// (the dirfiles protocol answers in a file).
type Job struct {
	Args          []string
	Stdin         []byte
	Timeout       time.Duration
	DiscardStdout bool
}

// Launched is how a decision ended: what it printed (stdout up to Limits.OutputBytes,
// the tail of stderr), its exit status (-1 when it did not exit by itself: a signal, a
// timeout, a process that never started), why the command could not be executed (0 when
// it was), and its fault, nil when it exited with 0.
type Launched struct {
	Stdout string
	Stderr string
	Exit   int
	Errno  syscall.Errno
	Fault  *engine.Fault
	// Forked: the launcher's fork server started the process, forking an idle
	// interpreter (a Python bot run by the launcher's own Python).
	Forked bool
}

// Run runs the bot's command followed by args once, like RunArgv, and returns its stdout
// with surrounding whitespace removed. Outcomes are those of RunArgv: Timeout (the
// decision's processes all killed), OutputLimit, Crash (a non-zero exit, a fatal signal,
// a program that cannot be executed), MemoryLimit (a runtime's out-of-memory message),
// Killed, and HostFault when the launcher or the sandbox failed or ctx was cancelled.
// No process of the decision outlives the call.
func (l *Launcher) Run(ctx context.Context, args []string, timeout time.Duration) (string, *engine.Fault) {
	r := l.Launch(ctx, Job{Args: args, Timeout: timeout})
	if r.Fault != nil {
		return "", r.Fault
	}
	return strings.Trim(r.Stdout, " \t\n\r\v\f"), nil
}

// Launch runs one decision and reports everything about how it ended. It may be called
// concurrently: each concurrent decision gets a launcher process of its own (started on
// demand and kept for later decisions), so concurrent decisions of one bot never wait for
// each other. Unlike Run it always goes through a launcher, even for a command whose
// interpreter only a sandbox of its own would show (see NewLauncher).
func (l *Launcher) Launch(ctx context.Context, job Job) Launched {
	if ctx.Err() != nil {
		return Launched{Exit: -1, Fault: &engine.Fault{Outcome: engine.HostFault, Detail: "run cancelled"}}
	}
	timeout := job.Timeout
	if timeout <= 0 {
		timeout = defaultArgvTimeout
	}
	lp, err := l.get(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return Launched{Exit: -1, Fault: &engine.Fault{Outcome: engine.HostFault, Detail: "run cancelled"}}
		}
		return Launched{Exit: -1, Fault: &engine.Fault{Outcome: engine.HostFault, Detail: err.Error()}}
	}
	req := launchRequest{
		ID: l.seq.Add(1), Args: job.Args, Timeout: timeout.Seconds(), CPU: cpuSeconds(l.spec.Limits.CPUTime),
		Out: l.outputLimit(), Discard: job.DiscardStdout,
	}
	if n := l.spec.Limits.OpenFiles; n > 0 && n < launcherFiles {
		req.NoFile = n
	}
	if len(job.Stdin) > 0 {
		req.Stdin = base64.StdEncoding.EncodeToString(job.Stdin)
	}
	slack := launcherSlack
	if l.slack > 0 {
		slack = l.slack
	}
	before := lp.use()
	// The answer's CPU is read fresh (one pread): its other sandboxes (another
	// tournament's) run between this sandbox's decisions. starved alone uses it.
	before.answer, before.answerOK = lp.p.Proc.answerCPU()
	rep, f := lp.exchange(ctx, req, timeout+slack)
	if f != nil {
		lp.close()
		// The run's memory watcher stops an answer's sandboxes whole, launcher and all.
		if k := lp.p.Proc.oomKilled(); k.Bound == boundShare && f.Outcome != engine.HostFault {
			f = &engine.Fault{Outcome: engine.MemoryLimit, Detail: "the decision's sandbox was killed: " + k.detail()}
		}
		return Launched{Exit: -1, Fault: f}
	}
	after := sandboxUse(lp.p.Proc)
	lp.last, lp.hasLast = after, true
	if after.ooms > before.ooms { // rare: whose the kill was is read only then
		after.kill = lp.p.Proc.oomKilled()
	}
	r := rep.launched(timeout, req.Out)
	r.Fault = before.charge(after, l.spec.Limits, r.Fault)
	if r.Fault != nil && rep.End == "timeout" {
		after.answer, after.answerOK = lp.p.Proc.answerCPU()
		r.Fault = before.starved(after, rep, timeout, r.Fault)
	}
	l.put(lp)
	r.Fault = overDisk(l.spec, r.Fault)
	return r
}

// Close stops the bot's launcher processes. Decisions still running finish first; their
// launchers stop when they do.
func (l *Launcher) Close() {
	l.mu.Lock()
	idle := l.idle
	l.idle, l.closed = nil, true
	l.mu.Unlock()
	for _, lp := range idle {
		lp.close()
	}
}

// Started reports how many launcher processes this Launcher has started: one per
// concurrent decision at most, plus one per restart.
func (l *Launcher) Started() int { return int(l.started.Load()) }

func (l *Launcher) outputLimit() int64 {
	if l.spec.Limits.OutputBytes > 0 {
		return l.spec.Limits.OutputBytes
	}
	return defaultArgvOutput
}

// get returns an idle launcher process, or starts one.
func (l *Launcher) get(ctx context.Context) (*launcherProc, error) {
	for {
		l.mu.Lock()
		if l.closed {
			l.mu.Unlock()
			return nil, errors.New("launcher closed")
		}
		n := len(l.idle)
		if n == 0 {
			l.mu.Unlock()
			return l.start(ctx)
		}
		lp := l.idle[n-1]
		l.idle = l.idle[:n-1]
		l.mu.Unlock()
		select {
		case <-lp.p.Exited: // died between decisions (the machine's OOM killer, …)
			lp.close()
		default:
			return lp, nil
		}
	}
}

func (l *Launcher) put(lp *launcherProc) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		lp.close()
		return
	}
	l.idle = append(l.idle, lp)
	l.mu.Unlock()
}

// start starts a launcher process in the bot's sandbox and waits for its greeting.
func (l *Launcher) start(ctx context.Context) (*launcherProc, error) {
	spec := l.spec
	isolation := l.isolation
	if isolation == "" {
		isolation = "auto"
	}
	forks := "--forkserver=on"
	if l.noForks || !LauncherForkServer {
		forks = "--forkserver=off"
	}
	spec.Argv = append([]string{l.python, "-I", "-S", "-c", launcherBoot, forks, "--isolation=" + isolation}, l.spec.Argv...)
	spec.Launcher = true
	// CPU time is per decision (set by the launcher on each one); the launcher's own
	// processes must not eat into the bot's process budget.
	spec.Limits.CPUTime = 0
	spec.Limits.Procs = spec.Limits.withDefaults().Procs + launcherProcs
	spec.Limits.OpenFiles = max(spec.Limits.OpenFiles, launcherFiles)
	// One reply line carries the stdout in base64 and the stderr tail JSON-escaped.
	spec.Limits.OutputBytes = 2*l.outputLimit() + 64<<10
	p, err := StartLineProc(ctx, l.sb, spec)
	if err != nil {
		return nil, fmt.Errorf("start the launcher in sandbox %s: %w", l.sb.Name(), err)
	}
	l.started.Add(1)
	lp := &launcherProc{p: p}
	src, _ := json.Marshal(launcherProgram())
	if _, err := p.stdin.Write(append(src, '\n')); err != nil {
		lp.close()
		return nil, fmt.Errorf("start the launcher: %w; stderr: %s", err, p.stderr.String())
	}
	timer := time.NewTimer(launcherStartTimeout)
	defer timer.Stop()
	select {
	case r := <-p.lines:
		var hello struct {
			Hello     int    `json:"hello"`
			Isolation string `json:"isolation"`
			Error     string `json:"error"`
		}
		if r.err == nil {
			err = json.Unmarshal(r.line, &hello)
		} else {
			err = r.err
		}
		if err == nil && hello.Hello != 1 {
			err = fmt.Errorf("launcher refused: %q", hello.Error)
		}
		if err != nil {
			lp.close()
			return nil, fmt.Errorf("start the launcher in sandbox %s: %w; stderr: %s", l.sb.Name(), err, p.stderr.String())
		}
		lp.isolation = hello.Isolation
		return lp, nil
	case <-timer.C:
		lp.close()
		return nil, fmt.Errorf("the launcher did not start within %s in sandbox %s; stderr: %s", launcherStartTimeout, l.sb.Name(), p.stderr.String())
	case <-ctx.Done():
		lp.close()
		return nil, ctx.Err()
	}
}

// launcherProc is one running launcher.
type launcherProc struct {
	p         *LineProc
	isolation string // "pidns" or "group"
	// last is what the sandbox had used when the last decision was reported: nothing of
	// a decision outlives its report and the launcher only waits for the next request,
	// so it is also what the sandbox has used when the next one starts, and each
	// decision reads its sandbox's cgroup once instead of twice.
	last    use
	hasLast bool
}

// use is what the launcher's sandbox has used so far (see last).
func (lp *launcherProc) use() use {
	if lp.hasLast {
		return lp.last
	}
	return sandboxUse(lp.p.Proc)
}

func (lp *launcherProc) close() { lp.p.Close() }

// exchange sends one request and waits for its reply until the hard deadline. A fault
// means the launcher is unusable; the caller kills it.
func (lp *launcherProc) exchange(ctx context.Context, req launchRequest, deadline time.Duration) (*launchReply, *engine.Fault) {
	line, err := json.Marshal(req)
	if err != nil {
		return nil, &engine.Fault{Outcome: engine.HostFault, Detail: fmt.Sprintf("launcher request: %v", err)}
	}
	if _, err := lp.p.stdin.Write(append(line, '\n')); err != nil {
		return nil, lp.died(fmt.Sprintf("its stdin is closed (%v)", err))
	}
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	select {
	case r := <-lp.p.lines:
		if errors.Is(r.err, errLineTooLong) {
			return nil, &engine.Fault{Outcome: engine.OutputLimit, Detail: "the launcher's report exceeded its bound; sandbox killed"}
		}
		if r.err != nil {
			return nil, lp.died("its stdout closed")
		}
		var rep launchReply
		if err := json.Unmarshal(r.line, &rep); err != nil || rep.ID != req.ID {
			return nil, &engine.Fault{Outcome: engine.Killed, Detail: fmt.Sprintf("the launcher's report is unreadable (%q); sandbox killed", Truncate(string(r.line), 200))}
		}
		return &rep, nil
	case <-timer.C:
		return nil, &engine.Fault{Outcome: engine.Timeout, Detail: fmt.Sprintf("no report from the launcher within %s; sandbox killed", deadline)}
	case <-ctx.Done():
		return nil, &engine.Fault{Outcome: engine.HostFault, Detail: "run cancelled"}
	}
}

// died names a launcher that stopped answering: a sandbox that failed is the host's
// fault; anything else happened during the bot's decision and is counted as the bot's.
func (lp *launcherProc) died(what string) *engine.Fault {
	select {
	case <-lp.p.Exited:
	case <-time.After(2 * time.Second):
		lp.p.Kill()
		<-lp.p.Exited
	}
	if sandboxFailed(lp.p.Proc, lp.p.err) {
		return &engine.Fault{Outcome: engine.HostFault, Detail: fmt.Sprintf("the sandbox failed: %v; %s", lp.p.err, lp.p.stderr.String())}
	}
	return &engine.Fault{Outcome: engine.Killed, Detail: fmt.Sprintf("the launcher died during the decision: %s (%v)%s; restarted",
		what, lp.p.err, stderrNote(lp.p.stderr))}
}

// use is what a launcher's sandbox had consumed at one moment, by its cgroup's count.
type use struct {
	cpu     time.Duration
	ooms    int64
	kill    memKill // set by Launch when the kernel killed a process of the decision (sandboxCgroup.judgeKill)
	counted bool    // false without a cgroup (sandbox none, cgroups off)
	// answer is the CPU time of every sandbox of the answer (read around a decision for
	// starved: answerOK false without a Share).
	answer   time.Duration
	answerOK bool
}

// sandboxUse reads p's sandbox cgroup.
func sandboxUse(p *Process) use {
	cpu, ok := p.CPU()
	return use{cpu: cpu, ooms: p.OOMs(), counted: ok}
}

// charge judges one decision by what its sandbox consumed between u and after, which
// RLIMIT_CPU and the launcher's view of its own child miss: forked children that spin
// together past the CPU limit, or whose memory together made the kernel kill one of them
// (the decision then often just sees a child die). One launcher serves one decision at a
// time, so the difference is the decision's (plus the launcher's few milliseconds).
func (u use) charge(after use, lim Limits, f *engine.Fault) *engine.Fault {
	if !u.counted || !after.counted {
		return f
	}
	if after.ooms > u.ooms && (f == nil || f.Outcome == engine.Crash || f.Outcome == engine.Killed) {
		if !after.kill.own() {
			return &engine.Fault{Outcome: engine.HostFault, Detail: "the kernel killed a process of the decision: " + after.kill.detail()}
		}
		return &engine.Fault{Outcome: engine.MemoryLimit, Detail: "the kernel killed a process of the decision: " + after.kill.detail()}
	}
	if used := after.cpu - u.cpu; f == nil && lim.CPUTime > 0 && used > lim.CPUTime+lim.CPUTime/2 {
		return &engine.Fault{Outcome: engine.Timeout,
			Detail: fmt.Sprintf("the decision's processes together used %s of CPU time, over its limit of %s", used.Round(time.Millisecond), lim.CPUTime)}
	}
	return f
}
