"""What every yardstick shares: reading the run, loading Python-class bots, and the report.

A yardstick plays the same bots and the same number of games as a kothd run, the way the
original controllers did, one game after another on one core, no sandbox: a Python-class
game's bots in the controller's own process, called directly (load); a program game's bots
launched one decision at a time with the command kothd runs them with, from one loop
(read_spec). kothd bench runs it after its own run and divides the two rates
(docs/benchmarks.md).

Input (stdin, JSON): {"module": game module (Python-class games), "games": N, "seed": S,
                      "workers": W (in_workers; 1: one loop), "options": {...},
                      "bots": [{"name": class or bot name,
                      "dir": prepared bot directory, "baseline": bool,
                      "run": the command of a program bot, run in dir}]}
Output (stdout, JSON): {"games": N, "seconds": wall time of the games, "cpu": CPU time of the
                        games, "leader": [name, share], "decisions": bot processes launched
                        (program games; 0: not counted)}

The bots are the files kothd prepared: each directory's bot.py, run in the namespace the
game's module (its .harness/<module>.py, the same base classes kothd's harness gives them)
provides, and the class of that name picked among its competitors.
"""
import importlib
import json
import os
import random
import sys
import time


def read_spec():
    """Reads the input; from now on what bots print goes nowhere, the report to the real stdout."""
    spec = json.load(sys.stdin)
    sys.stdout = open(os.devnull, "w")
    return spec


def load(module):
    """Reads the input and returns (spec, game module, bot classes in the run's order)."""
    spec = read_spec()
    bots = spec["bots"]
    harness = os.path.join(bots[0]["dir"], ".harness")
    sys.path.insert(0, harness)
    import pyclass  # noqa: F401  the harness module: game modules import names from it
    mod = importlib.import_module(spec.get("module") or module)
    classes = []
    for b in bots:
        if b.get("baseline"):
            classes.append(mod.BASELINES[b["name"]])
            continue
        path = os.path.join(b["dir"], "bot.py")
        with open(path, encoding="utf-8") as f:
            code = f.read()
        ns = mod.namespace()
        before = set(ns)
        sys.path.insert(0, b["dir"])
        try:
            exec(compile(code, path, "exec"), ns)
        finally:
            sys.path.pop(0)
        found = [c for c in mod.competitors(ns, before) if c.__name__ == b["name"]]
        if not found:
            raise SystemExit("yardstick: class %s not found in %s" % (b["name"], path))
        classes.append(found[0])
    return spec, mod, classes


def option(spec, name, default):
    """The challenge's option name (Go's field name or its yaml key), or default."""
    want = name.replace("_", "").lower()
    for k, v in (spec.get("options") or {}).items():
        if k.replace("_", "").lower() == want and v:
            return v
    return default


class Clock:
    """Wall and CPU time of the games alone (loading the bots is not counted). CPU counts the
    bot processes a yardstick launched and waited for too, as kothd's counts its bots'."""

    def __init__(self):
        self.wall0, self.cpu0 = time.perf_counter(), self.cpu()

    @staticmethod
    def cpu():
        # process_time for this process (os.times counts in ticks of 10 ms: a short forty
        # bench would read 0), os.times for the children it waited for.
        t = os.times()
        return time.process_time() + t.children_user + t.children_system

    def report(self, games, leader, decisions=0):
        out = {
            "games": games,
            "decisions": decisions,
            "seconds": time.perf_counter() - self.wall0,
            "cpu": self.cpu() - self.cpu0,
            "leader": leader,
        }
        real = sys.__stdout__
        real.write(json.dumps(out) + "\n")
        real.flush()


def in_workers(spec, play):
    """Plays spec's games as the original controller with a pool of worker processes did
    (forty's: Pool(threads).starmap, each worker a Controller over its share): forked once
    the bots are loaded, each worker plays play(n) for its share n of the games, in its
    own copy of every bot's module state, with its own random stream (seeded from the
    run's seed and the worker's number; the original's reseeded from the system at the
    fork). With one worker, play runs here. Reports the games every worker played and
    the wall and CPU time of them all (the workers' CPU counted as they are waited for)."""
    games, workers = spec["games"], max(int(spec.get("workers") or 1), 1)
    if workers == 1:
        clock = Clock()
        leader = play(games)
        clock.report(games, leader)
        return
    shares = [games // workers + (i < games % workers) for i in range(workers)]
    clock = Clock()
    pipes = {}  # worker pid -> the read end of its pipe
    for i, n in enumerate(shares):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            code = 0
            try:
                random.seed("%s/%d" % (spec.get("seed", 0), i))
                play(n)
                os.write(w, str(n).encode())
            except BaseException as e:  # the worker's failure is the yardstick's
                sys.stderr.write("yardstick worker %d: %r\n" % (i, e))
                code = 1
            finally:
                sys.stderr.flush()
                os._exit(code)
        os.close(w)
        pipes[pid] = r
    # Workers are reaped as they end; the first that fails stops the others (the
    # yardstick has failed: the rest of their games would only hold kothd up).
    played, failed = 0, None
    while pipes:
        pid, status = os.wait()
        r = pipes.pop(pid, None)
        if r is None:
            continue
        with os.fdopen(r, "rb") as f:
            got = f.read()
        if status == 0 and got:
            played += int(got)
            continue
        if failed is None:
            failed = status
            for other in pipes:
                try:
                    os.kill(other, 9)
                except OSError:
                    pass
    if failed is not None:
        raise SystemExit("yardstick: a worker failed (wait status %d)" % failed)
    clock.report(played, [])
