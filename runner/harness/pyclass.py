"""kothd pyclass harness: hosts one Python bot class and serves the engine's calls.

Run as: python3 -u pyclass.py <challenge> <bot.py>

Nothing the answer controls is on the command line: the class to host (an answer may create
classes with any name, of any length) and the seed come as the first input line.

The challenge module (forty.py, whiteelephant.py, ruins.py beside this file) provides:
  namespace()            -> dict: the globals an answer's code is executed in
  competitors(ns, names) -> list of classes that compete, in definition order
  BASELINES (optional)   -> {name: class}: built-in bots, hosted with an empty bot.py
  Handler(cls)           -> object with call(game, method, args) -> JSON-able result

Protocol (one JSON object per line):
  engine -> harness, once: {"class": name or "" to list the classes, "seed": seed}
  harness -> engine, once: {"ready": true, "classes": [...]} or {"error": "..."}
  engine -> harness: {"t": CPU seconds per call, "w": wall seconds per call,
                      "calls": [{"g": game, "m": method, "a": args}]}
  harness -> engine: {"replies": [{"r": result} | {"f": outcome, "d": detail}]}

The protocol uses private copies of the original stdin/stdout; the bot's own print() and
input() see stderr and /dev/null, so a chatty bot cannot corrupt the protocol.

Time: a call is limited by the CPU time it uses (ITIMER_PROF, the kernel's count for this
process), so a loaded host does not decide a bot's fate; a wall-clock timer, sized for a
loaded host, catches a bot that sleeps or waits. Neither interrupts the harness's own work:
its protocol I/O runs with no timer armed, and what it does on a bot's behalf inside a call
(importing numpy for the forty module's np) runs in untimed(). An import cut short leaves
its module half-initialised in the process for good: every later call of the bot fails.
"""
import contextlib
import importlib
import json
import os
import random
import signal
import sys
import traceback


class CallTimeout(BaseException):
    """Raised inside a bot call that exceeds its time limit (BaseException, so a bot's
    `except Exception` does not swallow it)."""


class LostInstance(Exception):
    """A call for a game this process holds no instance of (the process was restarted)."""


_TIMERS = (signal.ITIMER_PROF, signal.ITIMER_REAL)
_in_call = False   # a bot call is running with its timers armed
_untimed = 0       # depth of untimed() sections
_missed = False    # a timer fired inside an untimed() section


def _on_timer(signum, frame):
    global _missed
    if not _in_call:
        return  # a late signal after the call ended: the harness's own work goes on
    if _untimed:
        _missed = True
        return
    raise CallTimeout()


def _arm(cpu, wall):
    global _in_call
    _in_call = True
    if cpu > 0:
        signal.setitimer(signal.ITIMER_PROF, cpu)
    if wall > 0:
        signal.setitimer(signal.ITIMER_REAL, wall)


def _disarm():
    global _in_call
    _in_call = False
    for t in _TIMERS:
        signal.setitimer(t, 0)


@contextlib.contextmanager
def untimed():
    """Harness work on a bot's behalf inside its call: the call's timers stop meanwhile
    and resume with what was left afterwards."""
    global _untimed, _missed
    left = [signal.setitimer(t, 0)[0] for t in _TIMERS]
    _untimed += 1
    try:
        yield
    finally:
        _untimed -= 1
        if _untimed == 0 and _in_call:
            for t, d in zip(_TIMERS, left):
                if d > 0 or _missed:
                    signal.setitimer(t, max(d, 1e-6))
            _missed = False


class GameRandom:
    """Python's process-wide random module, kept per game. One process serves many games at
    once (they run in lockstep), while the original controllers ran one game per seeding
    of the module. So each seeded game keeps its own state of the module: it is put in
    place for each of the game's calls and saved after, and a game draws what it would
    have drawn played alone from its seed (which is what lets a replay of one game
    reproduce it). Games never seeded use the process-wide state as it is."""

    def __init__(self):
        self.states = {}  # game -> random.getstate() between the game's calls

    def seed(self, game, seed):
        self.states[game] = random.Random(seed).getstate()

    def forget(self, game):
        self.states.pop(game, None)

    @contextlib.contextmanager
    def of(self, game):
        state = self.states.get(game)
        if state is None:
            yield
            return
        random.setstate(state)
        try:
            yield
        finally:
            self.states[game] = random.getstate()


def _private_stdio():
    proto_in = os.fdopen(os.dup(0), "r", encoding="utf-8")
    proto_out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(2, 1)
    sys.stdin = open(os.devnull, "r")
    sys.stdout = sys.stderr
    return proto_in, proto_out


def _send(out, obj):
    out.write(json.dumps(obj, separators=(",", ":"), allow_nan=False) + "\n")
    out.flush()


def _describe(exc):
    """The exception as a participant needs it: the frames of their own code only (the
    harness's frames say nothing to them), and the message."""
    if isinstance(exc, SyntaxError) and exc.filename and "harness" not in exc.filename:
        where = "%s line %s" % (os.path.basename(exc.filename), exc.lineno)
        text = (exc.text or "").strip()
        return ("%s: %s: %s%s" % (type(exc).__name__, where, exc.msg, " in: " + text if text else ""))[-1500:]
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if HARNESS_DIR not in os.path.abspath(f.filename)]
    lines = ["%s line %d in %s: %s" % (os.path.basename(f.filename), f.lineno, f.name, (f.line or "").strip()) for f in frames[-4:]]
    lines.append("".join(traceback.format_exception_only(type(exc), exc)).strip())
    return "\n".join(lines)[-1500:]


HARNESS_DIR = os.path.dirname(os.path.abspath(__file__))


SEED = 0


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
    challenge, botfile = sys.argv[1:3]
    proto_in, proto_out = _private_stdio()
    setup = json.loads(proto_in.readline() or "{}")
    class_name, seed = str(setup.get("class") or ""), int(setup.get("seed") or 0)
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
        ns = mod.namespace()
        names_before = set(ns)
        exec(compile(code, botfile, "exec"), ns)
        classes = mod.competitors(ns, names_before)
    except BaseException as e:  # the answer's own code failed: a SyntaxError, an ImportError
        _send(proto_out, {"error": "the answer's code failed to run: " + _describe(e)})
        return
    if class_name == "":
        _send(proto_out, {"ready": True, "classes": [c.__name__ for c in classes]})
        proto_in.read()
        return
    chosen = [c for c in classes if c.__name__ == class_name]
    if not chosen and class_name in getattr(mod, "BASELINES", {}):
        chosen = [mod.BASELINES[class_name]]
    if not chosen:
        _send(proto_out, {"error": "class %s not found among %s" % (class_name, [c.__name__ for c in classes])})
        return
    _seed(seed)  # again: the answer's import-time code may have drawn numbers
    handler = mod.Handler(chosen[0])
    signal.signal(signal.SIGPROF, _on_timer)
    signal.signal(signal.SIGALRM, _on_timer)
    _send(proto_out, {"ready": True, "classes": [class_name]})
    for line in proto_in:
        req = json.loads(line)
        limit, wall = float(req.get("t") or 0), float(req.get("w") or 0)
        replies = []
        for c in req["calls"]:
            try:
                try:
                    _arm(limit, wall)
                    r = handler.call(c["g"], c["m"], c.get("a"))
                finally:
                    _disarm()
                replies.append({"r": r})
            except CallTimeout:
                replies.append({"f": "timeout", "d": "call exceeded %gs of CPU time (or %gs of wall time)" % (limit, wall)})
            except LostInstance as e:
                replies.append({"f": "crash", "d": str(e), "lost": True})
            except MemoryError as e:
                # The sandbox's memory limit (RLIMIT_DATA) refused an allocation.
                replies.append({"f": "memory limit", "d": _describe(e)})
            except BaseException as e:
                replies.append({"f": "crash", "d": _describe(e)})
        try:
            _send(proto_out, {"replies": replies})
        except (TypeError, ValueError) as e:
            # A result the challenge module failed to make JSON-able: report, do not die.
            _send(proto_out, {"replies": [{"f": "bad output", "d": "unencodable result: %s" % e}] * len(replies)})


if __name__ == "__main__":
    main()
