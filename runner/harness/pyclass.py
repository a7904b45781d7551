"""kothd pyclass harness: hosts one Python bot class and serves the engine's calls.

Run as: python3 -u pyclass.py <challenge> <bot.py> <ClassName|""> <seed>

The challenge module (forty.py, whiteelephant.py, ruins.py beside this file) provides:
  namespace()            -> dict: the globals an answer's code is executed in
  competitors(ns, names) -> list of classes that compete, in definition order
  BASELINES (optional)   -> {name: class}: built-in bots, hosted with an empty bot.py
  Handler(cls)           -> object with call(game, method, args) -> JSON-able result

Protocol (one JSON object per line):
  harness -> engine, once: {"ready": true, "classes": [...]} or {"error": "..."}
  engine -> harness: {"t": seconds per call, "calls": [{"g": game, "m": method, "a": args}]}
  harness -> engine: {"replies": [{"r": result} | {"f": outcome, "d": detail}]}

The protocol uses private copies of the original stdin/stdout; the bot's own print() and
input() see stderr and /dev/null, so a chatty bot cannot corrupt the protocol.
"""
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


def _on_alarm(signum, frame):
    raise CallTimeout()


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
    challenge, botfile, class_name, seed = sys.argv[1:5]
    seed = int(seed)
    proto_in, proto_out = _private_stdio()
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
    signal.signal(signal.SIGALRM, _on_alarm)
    _send(proto_out, {"ready": True, "classes": [class_name]})
    for line in proto_in:
        req = json.loads(line)
        limit = float(req.get("t") or 0)
        replies = []
        for c in req["calls"]:
            try:
                if limit > 0:
                    signal.setitimer(signal.ITIMER_REAL, limit)
                try:
                    r = handler.call(c["g"], c["m"], c.get("a"))
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                replies.append({"r": r})
            except CallTimeout:
                replies.append({"f": "timeout", "d": "call exceeded %gs" % limit})
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
