"""kothd pyclass harness: hosts one Python bot class and serves the engine's calls.

Run as: python3 -u pyclass.py <challenge> <bot.py>

Nothing the answer controls is on the command line: the class to host (an answer may create
classes with any name, of any length) and the seed come as the first input line.

The challenge module (forty.py, whiteelephant.py, ruins.py beside this file) provides:
  namespace()            -> dict: the globals an answer's code is executed in
  competitors(ns, names) -> list of classes that compete, in definition order
  BASELINES (optional)   -> {name: class}: built-in bots, hosted with an empty bot.py
  OWN_METHODS (optional) -> {method: (base class, what its method does)}: decisions an
                            answer's class must define itself (see _not_own)
  Handler(cls)           -> object with call(game, method, args) -> JSON-able result

Protocol (one JSON object per line):
  engine -> harness, once: {"class": name or "" to list the classes, "seed": seed,
                            "own": true to refuse a class without OWN_METHODS (validation)}
  harness -> engine, once: {"ready": true, "classes": [...]} or {"error": "..."}
  engine -> harness: {"t": CPU seconds per call, "w": wall seconds per call,
                      "calls": [{"g": game, "m": method, "a": args}]}
                 or, packed, when every call's args are integers or null (at least one
                     call's integers; game numbers within 32 bits), so a Handler whose
                     arguments pack must read both forms:
                     {"t": ..., "w": ..., "m": [method, ...], "p": base64}, p holding for
                      each call: game, index of its method in m, n, then n args (n = -1: null), as
                      little-endian 32-bit integers; the Handler gets the args as a list
  harness -> engine: {"replies": [{"r": result} | {"f": outcome, "d": detail}]}
                 or {"b": "1001"} when every result is a boolean (a character each)

The protocol uses private copies of the original stdin/stdout; the bot's own print() and
input() see stderr and /dev/null, so a chatty bot cannot corrupt the protocol.

Time: a call is limited by the CPU time it uses, so a loaded host does not decide a bot's
fate; a wall-clock limit, sized for a loaded host, catches a bot that sleeps or waits.
Neither interrupts the harness's own work: the timers' handlers interrupt only a running
call (between calls a tick or an alarm just returns), and what it does on a bot's behalf inside a call (importing numpy for the forty module's np)
runs in untimed(). An import cut short leaves its module half-initialised in the process
for good: every later call of the bot fails.

The timers cost no system call per call or per batch (on these machines a system call costs
several microseconds, more than a forty call's whole work, and a White Elephant batch holds
about one call): they stay armed between batches and are set again only when a batch brings
other limits. ITIMER_PROF ticks every few hundredths of the limit of CPU time the process
uses (never while it waits for a batch); each tick reads the process's CPU clock and
interrupts the running call once it has used its limit (measured from the tick before it
started, so a call always gets its whole limit). ITIMER_REAL fires every wall limit; while
a call runs it re-arms itself for what that call has left (a call's start is read from the
cheap monotonic clock), so a call is interrupted once it has taken the wall limit.

Where the process's time goes (when the setup line has "stats": n, as kothd bench's does):
asked {"stats": true} (instead of a batch, once the batches are done), the harness answers
  {"stats": {"ready": s, "cpu": s, "calls": s, "bot": s or null, "n": calls, "ns": calls}}
ready: the process's CPU time when it was ready (interpreter, harness, the answer's import);
cpu: its CPU time at the end; n: the calls it served; calls: the time spent inside the game
module's Handler.call in the ns calls timed; bot: of that, inside the bot's own methods,
when the game module measures it (its Handler has a timed_call, served instead of call for
the calls timed, which adds to bot_time[0]; else null). Both are monotonic-clock time (a
vDSO read, no system call), less the thread's wait for a CPU within each batch in
proportion (schedstat): CPU time per call would cost two system calls per call. They are
the bot's word, for kothd bench only. Only one call in n is timed (the first, then every
n-th; "stats": true is every call): timing every call cost the C loop about 120 ns a call
(a fifth more CPU per call in BenchmarkHarnessLoops), which the bench then reported of a
daemon that never measures; the runner scales the sample up by n / ns.

Protocol I/O goes through the file descriptors directly: at most one read(2) per batch (one
brings every line already queued; a long line takes one per pipe-full) and one write(2) per
reply line.

The batch loop has a twin in C (_pyclassfast.c beside this file, which kothd compiles for
the interpreter and installs as _pyclassfast<the interpreter's extension suffix>): when it is
there and loads, it serves the batches (the packed form read in C, anything else through
_request below; faults described by _fault_reply, other results encoded by _reply; the
timers' state and handlers in C), with the same replies byte for byte. Without it, the loop
below serves.
"""
import binascii
import importlib
import os
import random
import sys
import time

# Imported only when needed: json (through re and enum), contextlib, signal (through enum)
# and traceback (through linecache and tokenize) cost 20 ms of every harness's start, a
# fifth of a sandboxed bot's whole start-up, where the protocol needs only the C modules
# beneath json and signal (_json below, _signal here). json and traceback are imported
# when a result needs the general encoder or a failure is described.
try:
    import _signal as signal  # signal's own functions, without its enums
except ImportError:  # a Python without CPython's C modules (PyPy): the module itself
    import signal


class CallTimeout(BaseException):
    """Raised inside a bot call that exceeds its time limit (BaseException, so a bot's
    `except Exception` does not swallow it)."""


class LostInstance(Exception):
    """A call for a game this process holds no instance of (the process was restarted)."""


class RulesAnswer(Exception):
    """Raised by a game's module for an answer the rules read as a move, an invalid action
    they punish (Ruins: death by trap): counted as a fault, but play, not a failure to play
    (validation enters the bot; it breaks a fault streak)."""


_limit = 0.0       # CPU seconds one call may use (0: no limit)
_wall = 0.0        # wall seconds one call may take (0: no limit)
_tick = 0.0        # CPU seconds between SIGPROF ticks while a batch runs
_in_call = False   # a bot call is running
_untimed = 0       # depth of untimed() sections
_last_cpu = 0.0    # the process's CPU time at the last tick (or the batch's start)
_call_cpu0 = 0.0   # _last_cpu when the running call started: at most one tick before it
_call_wall0 = 0.0  # monotonic time when the running call started
_by_wall = False   # the running call was stopped by the wall clock, not its CPU time
_in_calls = 0.0    # seconds inside the timed calls of Handler.call, the batches' waits for a CPU taken out
bot_time = [0.0]   # of that, inside the bot's own methods (added by the Handler's timed_call,
                   # if it has one; see the stats line in the module's docstring)
_n_sampled = 0     # calls timed for the stats (see the docstring), of _n_calls


def _on_prof(signum, frame):
    global _last_cpu
    now = time.process_time()
    _last_cpu = now
    # The call started at most one tick after _call_cpu0: past limit + tick it has used
    # its whole limit for sure.
    if _in_call and not _untimed and _limit > 0 and now - _call_cpu0 >= _limit + _tick:
        raise CallTimeout()


def _on_alarm(signum, frame):
    # Outside a call the timer just fires again after _wall (it is periodic); untimed()
    # sets it right when its section ends.
    if not _in_call or _untimed:
        return
    global _by_wall
    # Time the host kept this thread from a CPU is not the bot's waiting: the limit is
    # pushed back by it (the wait since the batch began, as the kernel counts it), so a
    # call on a starved host runs on until its CPU limit stops it. The runner's deadline
    # per batch still bounds it.
    left = _wall - (time.monotonic() - _call_wall0) + _host_wait()
    if left > 0:
        signal.setitimer(signal.ITIMER_REAL, left, _wall)
        return
    _by_wall = True
    raise CallTimeout()


_sched_fd = -1     # /proc/thread-self/schedstat of the thread serving calls, or -1
_batch_wait0 = 0   # its wait for a CPU (ns) when the running batch began


def _open_sched():
    global _sched_fd
    try:
        _sched_fd = os.open("/proc/thread-self/schedstat", os.O_RDONLY)
    except OSError:
        _sched_fd = -1


def _sched_wait():
    """The serving thread's time waiting for a CPU so far, in ns (0 if unknown)."""
    if _sched_fd < 0:
        return 0
    try:
        return int(os.pread(_sched_fd, 128, 0).split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def _host_wait():
    """Seconds the serving thread has waited for a CPU since the batch began."""
    return max(_sched_wait() - _batch_wait0, 0) / 1e9


def _arm(cpu, wall):
    """Arms the timers for a batch whose calls may each use cpu seconds of CPU time and
    take wall seconds (0: no limit of that kind). Armed timers stay armed: only a change of
    limits costs system calls."""
    global _limit, _wall, _tick, _last_cpu
    if cpu != _limit:
        _limit = cpu
        if cpu > 0:
            _tick = min(max(cpu / 20, 0.005), 0.05)
            _last_cpu = time.process_time()
            signal.setitimer(signal.ITIMER_PROF, _tick, _tick)
        else:
            signal.setitimer(signal.ITIMER_PROF, 0)
    if wall != _wall:
        _wall = wall
        signal.setitimer(signal.ITIMER_REAL, wall, wall)  # 0 disarms


def _disarm():
    _arm(0.0, 0.0)


class untimed:
    """Harness work on a bot's behalf inside its call (with untimed(): ...): the time it
    takes is not charged to the call, which has what it had left afterwards."""

    __slots__ = ("cpu0", "wall0")

    def __enter__(self):
        global _untimed
        if _fast is not None:  # the C loop's timers (_pyclassfast.c)
            self.cpu0, self.wall0 = _fast.untimed_enter()
            return
        self.cpu0, self.wall0 = time.process_time(), time.monotonic()
        _untimed += 1

    def __exit__(self, *exc):
        global _untimed, _call_cpu0, _call_wall0
        if _fast is not None:
            _fast.untimed_exit(self.cpu0, self.wall0)
            return False
        _untimed -= 1
        if _untimed == 0 and _in_call:
            _call_cpu0 += time.process_time() - self.cpu0
            _call_wall0 += time.monotonic() - self.wall0
            if _wall > 0:  # the alarm may have fired in the section: set it for what is left
                signal.setitimer(signal.ITIMER_REAL, max(_wall - (time.monotonic() - _call_wall0), 1e-3), _wall)
        return False


class ModuleRandom:
    """Python's module-level random functions (random.random(), random.choice(), ...), kept
    per stream: per game, or per seat of a game. One process serves many games at once (they
    run in lockstep), and the module's single state would make what a game draws depend on
    the games in flight. So, before the answer's code runs (a challenge module installs this
    when it is imported), each module-level function is replaced by one that draws from the
    current stream's own generator, seeded one-way from the stream's key: a game draws what
    it would have drawn played alone, and a replay of one game reproduces it. Switching
    streams costs a reference per call, where saving and restoring the module's state
    (random.getstate and setstate) would cost two copies of 625 words. random._inst itself
    stays the process's, and numpy's random is not covered."""

    # current[0] is the Stream of the call being served; None: the process's own state. A
    # list's item, not a class attribute: a Stream may hold a bot's objects (forty's game
    # records do), and CPython 3.11 crashes when a finaliser run by a class attribute's
    # assignment reads that class's attributes; a list's item is also cheaper to set.
    current = [None]
    installed = False

    @classmethod
    def install(cls):
        """Idempotent: a second call finds no bound method of random._inst left to replace."""
        cls.installed = True
        for name in dir(random):
            f = getattr(random, name)
            if getattr(f, "__self__", None) is random._inst and not name.startswith("_"):
                setattr(random, name, cls._dispatch(name))

    @classmethod
    def _dispatch(cls, name):
        current = cls.current

        def draw(*args, **kwargs):
            s = current[0]
            gen = random._inst if s is None else s.gen()
            return getattr(gen, name)(*args, **kwargs)
        draw.__name__ = draw.__qualname__ = name
        return draw


class Stream:
    """One stream of ModuleRandom: its generator is made when first drawn from (most bots
    never draw from the module). The key goes through SHA-512 as a string seed, so the
    draws say nothing of it."""

    __slots__ = ("key", "_gen")

    def __init__(self, key, gen=None):
        self.key = key
        self._gen = gen

    def gen(self):
        if self._gen is None:
            self._gen = random.Random("module random of " + self.key)
        return self._gen


class GameRandom:
    """Python's module-level random, seeded per game by the engine: seed(game, seed) gives
    the game the draws of the module seeded with seed (as the original controllers seeded
    it for each game), put in place for each of the game's calls by use(game); a game
    draws what it would have drawn played alone, and a replay of one game reproduces it.
    Games never seeded use the process-wide state as it is. Built on ModuleRandom, which
    the challenge module must install when it is imported (before the answer's code runs,
    so that an answer's `from random import randint` draws per game too)."""

    def __init__(self):
        if not ModuleRandom.installed:
            raise RuntimeError("GameRandom needs pyclass.ModuleRandom.install() at the challenge module's import")
        self.streams = {}  # game -> Stream

    def seed(self, game, seed):
        self.streams[game] = Stream(None, random.Random(seed))

    def forget(self, game):
        self.streams.pop(game, None)

    def use(self, game):
        """Puts the game's stream in place for its call (a reference: no copy of any state)."""
        ModuleRandom.current[0] = self.streams.get(game)


def _private_stdio():
    """The protocol's file descriptors (private copies of stdin and stdout); the bot's own
    stdin reads /dev/null and its stdout goes to stderr."""
    proto_in, proto_out = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(2, 1)
    sys.stdin = open(os.devnull, "r")
    sys.stdout = sys.stderr
    return proto_in, proto_out


def _lines(fd):
    """The lines read from fd, without their newlines: one read(2) brings a whole batch line
    (or a pipe-full of a long one)."""
    pending = []
    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except InterruptedError:  # Python 2 does not retry after a signal handler (PEP 475)
            continue
        if not chunk:
            if pending:
                yield b"".join(pending)
            return
        if b"\n" not in chunk:
            pending.append(chunk)
            continue
        pending.append(chunk)
        parts = b"".join(pending).split(b"\n")
        rest = parts.pop()
        pending = [rest] if rest else []
        for line in parts:
            yield line


def _write(fd, text):
    data = text.encode("utf-8")
    while data:
        try:
            n = os.write(fd, data)
        except InterruptedError:
            continue
        data = data[n:]


class _Decoding:
    """What _json's scanner reads of json.JSONDecoder: json.loads's defaults."""
    strict = True
    object_hook = object_pairs_hook = None
    parse_float, parse_int = float, int
    parse_constant = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}.__getitem__


try:
    from _json import encode_basestring_ascii as _quote, make_scanner
    _scan = make_scanner(_Decoding())
except ImportError:  # a Python without json's C accelerator (PyPy): json itself
    import json
    _scan, _quote = json.JSONDecoder().scan_once, json.encoder.encode_basestring_ascii


def _loads(text):
    """text (one protocol line) as json.loads reads it."""
    text = text.strip(" \t\r\n")
    try:
        v, end = _scan(text, 0)
    except StopIteration:
        raise ValueError("protocol line is not JSON: %r" % text[:100])
    if end != len(text):
        raise ValueError("protocol line has extra data: %r" % text[:100])
    return v


_encoder = None


def _encode(v):
    """v as JSON through json's own encoder (made once, on first use: json.dumps with
    arguments makes a new encoder per call): for what _json below does not write by hand."""
    global _encoder
    if _encoder is None:
        import json
        _encoder = json.JSONEncoder(separators=(",", ":"), allow_nan=False).encode
    return _encoder(v)


def _send(out, obj):
    _write(out, _json(obj) + "\n")


def _describe(exc):
    """The exception as a participant needs it: the frames of their own code only (the
    harness's frames say nothing to them), and the message."""
    if isinstance(exc, SyntaxError) and exc.filename and "harness" not in exc.filename:
        where = "%s line %s" % (os.path.basename(exc.filename), exc.lineno)
        text = (exc.text or "").strip()
        return ("%s: %s: %s%s" % (type(exc).__name__, where, exc.msg, " in: " + text if text else ""))[-1500:]
    # A walk of the traceback rather than traceback.extract_tb, which stats every file
    # (linecache.checkcache) and works out column positions: a bot that fails every call
    # (forty's field has two) paid more for its description than for its call, where the
    # original controllers just counted the error. The text is the same; a source line is
    # read once and kept, as linecache keeps it.
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if not _harness_file(code.co_filename):
            frames.append((code.co_filename, tb.tb_lineno, code.co_name, tb.tb_frame.f_globals))
        tb = tb.tb_next
    try:
        import linecache
        import traceback
    except Exception:
        # Their first import failed: the bot still holds the memory it ran out of. The
        # frames and the exception are told without the source lines.
        linecache = traceback = None
    lines = ["%s line %d in %s: %s" % (os.path.basename(name), lineno, func, _source_line(name, lineno, g, linecache))
             for name, lineno, func, g in frames[-4:]]
    lines.append(_exception_only(exc, traceback))
    return "\n".join(lines)[-1500:]


_SOURCES = {}  # file name -> its lines: the answer's, kept as it was read


def _source_line(name, lineno, g, linecache):
    """Line lineno of file name, stripped: the answer's from _SOURCES (no I/O and no
    allocation beyond the result: a bot out of memory still gets its line), any other
    through linecache, if it could be imported."""
    lines = _SOURCES.get(name)
    if lines is not None:
        return lines[lineno - 1].strip() if 0 < lineno <= len(lines) else ""
    return linecache.getline(name, lineno, g).strip() if linecache is not None else ""


def _exception_only(exc, traceback):
    """The exception's last line, as traceback.format_exception_only writes it; with
    traceback None (not importable), its type and message alone."""
    if traceback is not None:
        return "".join(traceback.format_exception_only(type(exc), exc)).strip()
    t = type(exc)
    name = t.__qualname__ if t.__module__ in ("builtins", "__main__") else t.__module__ + "." + t.__qualname__
    try:
        msg = str(exc)
    except Exception:
        msg = "<exception str() failed>"
    return "%s: %s" % (name, msg) if msg else name


HARNESS_DIR = os.path.dirname(os.path.abspath(__file__))

_harness_files = {}  # a code object's file name -> whether it is the harness's
# This module's own, whether it runs from its source (an absolute name) or compiled (kothd
# compiles it as .harness/pyclass.py, relative: resolved later against the directory a bot
# moved to, it would no longer be the harness's).
_harness_files[sys._getframe().f_code.co_filename] = True


def _harness_file(name):
    """Whether the file name is one of the harness's (its own frames say nothing to a
    participant); remembered, as the absolute path costs a getcwd(2)."""
    own = _harness_files.get(name)
    if own is None:
        own = _harness_files[name] = HARNESS_DIR in os.path.abspath(name)
    return own


SEED = 0

# The batch loop in C (_pyclassfast.c), when kothd built it for this interpreter and
# installed it beside this file (else, or when it does not load, the loop below serves:
# the same protocol, byte for byte). Loaded from this directory by its path, before the
# answer's code runs; None: the Python loop.
_fast = None


def _load_fast():
    global _fast
    import importlib.machinery  # small (importlib itself is imported above)
    # Named for this interpreter's ABI (kothd's build): another interpreter's is not loaded.
    path = os.path.join(HARNESS_DIR, "_pyclassfast" + importlib.machinery.EXTENSION_SUFFIXES[0])
    if not os.path.exists(path):
        return
    try:
        # The loader itself, not importlib.util (whose import of contextlib and functools
        # costs 10 ms of every harness's start).
        loader = importlib.machinery.ExtensionFileLoader("_pyclassfast", path)
        mod = loader.create_module(importlib.machinery.ModuleSpec("_pyclassfast", loader, origin=path))
        loader.exec_module(mod)
    except Exception as e:  # built for another interpreter: the Python loop serves
        sys.stderr.write("pyclass: the C batch loop did not load (%s); serving in Python\n" % e)
        return
    _fast = mod


def _fast_lines(fd):
    """_lines, read by the C loop's reader (which keeps what it read past a line for serve)."""
    while True:
        line = _fast.readline(fd)
        if line is None:
            return
        yield line


def _request(line, out, stats):
    """A request line the C loop leaves to Python (anything but the packed form as kothd
    writes it): None for a stats request (answered here), else the batch's
    (CPU limit, wall limit, calls)."""
    req = _loads(line.decode("utf-8"))
    if "stats" in req:
        if stats is not None:
            _send(out, stats())
        return None
    return float(req.get("t") or 0), float(req.get("w") or 0), _calls(req)


def _seed(seed):
    global SEED
    SEED = seed
    random.seed(seed)
    np = sys.modules.get("numpy")
    if np is not None:
        try:
            np.random.seed(seed % (2 ** 32))
        except Exception:
            pass


def main():
    """Sets the bot up; returns what _serve needs, or None when there is nothing to serve.
    The module's top level calls _serve itself, so that no frame of main sits under every
    call: a bot may walk its stack (forty's CopyCatBot calls inspect.stack() on every
    call, which costs tens of microseconds per frame), and the harness's frames beneath
    it should be no more than the original controllers' were."""
    challenge, botfile = sys.argv[1:3]
    _load_fast()
    proto_in, proto_out = _private_stdio()
    lines = _lines(proto_in) if _fast is None else _fast_lines(proto_in)
    setup = _loads(next(lines, b"{}").decode("utf-8") or "{}")
    class_name, seed = str(setup.get("class") or ""), int(setup.get("seed") or 0)
    own = bool(setup.get("own"))
    # Challenge modules import names from "pyclass": make that this very module, not a
    # second copy whose LostInstance the loop below would not recognise.
    sys.modules.setdefault("pyclass", sys.modules[__name__])
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    mod = importlib.import_module(challenge)
    sys.path.pop(0)
    sys.path.insert(0, os.getcwd())
    _seed(seed)
    try:
        with open(botfile, encoding="utf-8") as f:
            code = f.read()
        _SOURCES[botfile] = code.split("\n")  # read with universal newlines: only \n
        ns = mod.namespace()
        names_before = set(ns)
        exec(compile(code, botfile, "exec"), ns)
        classes = mod.competitors(ns, names_before)
    except BaseException as e:  # the answer's own code failed: a SyntaxError, an ImportError
        _send(proto_out, {"error": "the answer's code failed to run: " + _describe(e)})
        return
    if class_name == "":
        _send(proto_out, {"ready": True, "classes": [c.__name__ for c in classes]})
        for _ in lines:  # until the engine closes the pipe
            pass
        return
    chosen = [c for c in classes if c.__name__ == class_name]
    if not chosen and class_name in getattr(mod, "BASELINES", {}):
        chosen = [mod.BASELINES[class_name]]
    if not chosen:
        _send(proto_out, {"error": "class %s not found among %s" % (class_name, [c.__name__ for c in classes])})
        return
    missing = own and _not_own(mod, chosen[0], class_name)
    if missing:
        _send(proto_out, {"error": missing})
        return
    _seed(seed)  # again: the answer's import-time code may have drawn numbers
    handler = mod.Handler(chosen[0])
    _open_sched()
    signal.signal(signal.SIGPROF, _on_prof if _fast is None else _fast.on_prof)
    signal.signal(signal.SIGALRM, _on_alarm if _fast is None else _fast.on_alarm)
    ready = time.process_time()
    _send(proto_out, {"ready": True, "classes": [class_name]})
    # call serves the batches; timed (the Handler's timed_call where it has one) the
    # calls sampled for the stats.
    stats, call = None, handler.call
    timed = call
    if setup.get("stats"):
        timed = getattr(handler, "timed_call", None) or call
        measures_bot = timed is not call

        def stats():
            bot = bot_time[0] if measures_bot else None
            return {"stats": {"ready": ready, "cpu": time.process_time(), "calls": _in_calls, "bot": bot,
                              "n": _n_calls, "ns": _n_sampled}}
    # The setup's "stats" is n: one call in n is timed (true: every call).
    measure = max(1, int(setup["stats"])) if stats is not None else 0
    if _fast is not None:
        # The C loop's arguments. A game module's Handler may name a dispatch the C loop
        # serves itself (FAST: forty's hot calls), without its call's frame.
        return dict(in_fd=proto_in, out_fd=proto_out, call=call, timed=timed,
                    request=lambda line: _request(line, proto_out, stats), fault=_fault_reply,
                    reply=_reply, globals=globals(), measure=measure, handler=handler,
                    fast=getattr(handler, "FAST", None), sched_fd=_sched_fd, timeout=CallTimeout)
    return lines, proto_out, call, timed, stats, measure


def _not_own(mod, cls, name):
    """Why an answer's class may not play, or "" (asked in validation only: the runner's
    own tests host bare classes to test the protocol): the module's OWN_METHODS ({method: base
    class, what the base's does}) are the decisions a class must make itself. A class
    whose make_throw is misspelt would play the base's and never throw, and so pass every
    check while playing nothing of its author's."""
    if name in getattr(mod, "BASELINES", {}):
        return ""
    for method, (base, does) in getattr(mod, "OWN_METHODS", {}).items():
        if getattr(cls, method, None) is getattr(base, method, None):
            own = sorted(k for k in vars(cls) if not k.startswith("__"))
            return "class %s does not define %s: it would only play %s's (%s); it defines %s" % (
                name, method, base.__name__, does, ", ".join(own) or "nothing")
    return ""


_TRUE, _FALSE = '{"r":true}', '{"r":false}'


def _reply(r):
    """One reply's JSON text."""
    try:
        return '{"r":%s}' % _json(r)
    except (TypeError, ValueError) as e:
        # A result the challenge module failed to make JSON-able: report, do not die.
        return _fault("bad output", "unencodable result: %s" % e)


def _json(v):
    """v as JSON, exactly as _encode writes it: the types results are made of by hand
    (JSONEncoder.encode builds a new C encoder for every value, which costs more than a
    whole forty call); floats and anything else through _encode."""
    t = type(v)
    if t is str:
        return _quote(v)
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if t is int:
        return "%d" % v
    if t is list or t is tuple:
        return "[%s]" % ",".join([_json(x) for x in v])
    if t is dict and all(type(k) is str for k in v):
        return "{%s}" % ",".join([_quote(k) + ":" + _json(x) for k, x in v.items()])
    return _encode(v)


def _fault(outcome, detail, lost=False, rules=False):
    f = {"f": outcome, "d": detail}
    if lost:
        f["lost"] = True
    if rules:
        f["rules"] = True
    return _json(f)


def _calls(req):
    """The batch's calls as (game, method, args) triples, from either form of the request
    (see the module's docstring)."""
    packed = req.get("p")
    if packed is None:
        return [(c["g"], c["m"], c.get("a")) for c in req["calls"]]
    methods = req["m"]
    v = memoryview(binascii.a2b_base64(packed)).cast("i").tolist()
    if sys.byteorder != "little":
        v = [int.from_bytes(x.to_bytes(4, "big", signed=True), "little", signed=True) for x in v]
    calls = []
    add = calls.append
    i, n = 0, len(v)
    while i < n:
        k = v[i + 2]
        if k < 0:  # no arguments: None, as in the JSON form
            add((v[i], methods[v[i + 1]], None))
            i += 3
            continue
        j = i + 3 + k
        add((v[i], methods[v[i + 1]], v[i + 3:j]))
        i = j
    return calls


_n_calls = 0  # calls served


def _serve(lines, proto_out, plain, timed, stats=None, every=0):
    """The batch loop: one decode and one write per batch, the timers armed for the batch's
    limits (see Time in the module's docstring). With stats, a request {"stats": true} is
    answered with the stats line, and one call in every (the first, then every every-th) is
    timed, served by timed."""
    global _in_call, _call_cpu0, _call_wall0, _by_wall, _batch_wait0, _in_calls, _n_calls
    monotonic = time.monotonic
    measure = every > 0  # the time in calls is summed only when it is asked for
    seen = 0  # calls served, for the sampling
    try:
        for line in lines:
            req = _loads(line.decode("utf-8"))
            if "stats" in req:
                if stats is not None:
                    _send(proto_out, stats())
                continue
            limit, wall = float(req.get("t") or 0), float(req.get("w") or 0)
            if limit != _limit or wall != _wall:
                _arm(limit, wall)
            if wall > 0 or measure:
                _batch_wait0 = _sched_wait()
            bot0 = bot_time[0] if measure else 0.0  # the bot's list (in its reach): read only when asked for
            in_calls = 0.0
            sampled = 0  # calls timed in this batch
            replies = []
            add = replies.append
            other = 0  # replies that are not a boolean result
            calls = _calls(req)
            now = batch0 = monotonic()
            for game, method, args in calls:
                timing = False
                if measure:
                    timing = seen % every == 0
                    seen += 1
                    sampled += timing
                try:
                    try:
                        # A call starts when the one before it ended: one clock read per
                        # call. The harness's work between them (a reply's encoding) is
                        # charged to the next call's wall time: microseconds against a
                        # wall limit of seconds.
                        _call_cpu0, _call_wall0 = _last_cpu, now
                        _in_call = True
                        r = (timed if timing else plain)(game, method, args)
                        now = monotonic()
                        if _wall > 0 and now - _call_wall0 >= _wall and now - _call_wall0 - _host_wait() >= _wall:
                            # It ended as its wall limit ran out, before the alarm (which
                            # re-arms for what is left) said so: the limit, not that race,
                            # decides, so a run and its replay agree.
                            _by_wall = True
                            raise CallTimeout()
                    finally:
                        _in_call = False
                    if timing:
                        in_calls += now - _call_wall0
                    if r is True:
                        add("1")
                    elif r is False:
                        add("0")
                    else:
                        add(_reply(r))
                        other += 1
                    continue
                except BaseException as e:
                    by_wall = False
                    if isinstance(e, CallTimeout):
                        # Raised by a timer whose handler ran in the finally above, before
                        # it marked the call over: mark it now, or the armed timers would
                        # interrupt the harness's own work (its read of the next batch)
                        # and end the process.
                        _in_call = False
                        by_wall, _by_wall = _by_wall, False
                    add(_fault_reply(e, limit, wall, by_wall))
                other += 1
                now = monotonic()
                if timing:
                    in_calls += now - _call_wall0
            _send_replies(proto_out, replies, other)
            if measure:
                _count_batch(len(calls), sampled, in_calls, now - batch0, bot0)
    finally:
        _disarm()


def _fault_reply(e, limit, wall, by_wall):
    """The reply of a call that raised e (in a batch of those limits), the C loop's too."""
    if isinstance(e, CallTimeout):
        if by_wall:
            # Stopped by the wall clock: the runner decides whether the bot waited (its
            # fault) or the host kept it from a CPU (not its fault).
            return '{"f":"timeout","d":"call exceeded %gs of wall time","wall":true}' % wall
        return _fault("timeout", "call exceeded %gs of CPU time (or %gs of wall time)" % (limit, wall))
    if isinstance(e, LostInstance):
        return _fault("crash", str(e), lost=True)
    if isinstance(e, RulesAnswer):
        return _fault("crash", _describe(e), rules=True)
    if isinstance(e, MemoryError):
        # The sandbox's memory limit (RLIMIT_DATA) refused an allocation.
        return _fault("memory limit", _describe(e))
    return _fault("crash", _describe(e))


def _count_batch(n, sampled, in_calls, span, bot0):
    """Adds a batch's n calls to the stats, sampled of them timed: the time inside those
    (and the game module's bot_time since bot0) less their part of the thread's wait for a
    CPU over the batch, in proportion (a host that kept the harness from a CPU inside a call
    is not the call's work)."""
    global _in_calls, _n_calls, _n_sampled
    _n_calls += n
    _n_sampled += sampled
    waited = (_sched_wait() - _batch_wait0) / 1e9 if _sched_fd >= 0 else 0.0
    keep = 1.0 - min(max(waited / span, 0.0), 1.0) if span > 0 and waited > 0 else 1.0
    _in_calls += in_calls * keep
    if keep != 1.0:
        bot_time[0] = bot0 + (bot_time[0] - bot0) * keep


def _send_replies(out, replies, other):
    """Writes a batch's reply line: {"b":"0110"} when every reply is a boolean result ("1"
    or "0" in replies), else the list of their JSON objects."""
    if other == 0:
        _write(out, '{"b":"%s"}\n' % "".join(replies))
        return
    _write(out, '{"replies":[%s]}\n' % ",".join([_TRUE if r == "1" else _FALSE if r == "0" else r for r in replies]))


def _end():
    """Ends the process once its input is closed, as the interpreter's exit does for what a
    bot can see of it (non-daemon threads joined, exit handlers, stdio flushed) but without
    its teardown of every object, which nothing of the run waits for any more: 3 ms of CPU
    for the harness alone, 15 with numpy imported, in each of fifty processes."""
    for step in (sys.modules["threading"]._shutdown if "threading" in sys.modules else None,
                 sys.modules["atexit"]._run_exitfuncs if "atexit" in sys.modules else None):
        try:
            if step is not None:
                step()
        except BaseException:
            pass
    for f in (sys.stdout, sys.stderr):
        try:
            if f is not None and not f.closed:
                f.flush()
        except BaseException:
            pass
    os._exit(0)


if __name__ == "__main__":
    _serving = main()
    if type(_serving) is dict:
        _fast.serve(**_serving)  # from here: no frame of the harness's under a call
    elif _serving is not None:
        _serve(*_serving)
    _end()
