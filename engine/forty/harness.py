"""Forty game (codegolf 177765): the base module every answer was appended to (spec §1.1)."""
import importlib
import random
import sys

import pyclass
from pyclass import LostInstance


class _Lazy:
    """A module pre-bound in the answers' namespace like in the original module (inspect,
    numpy as np), imported on first use: most bots never touch them, and importing them
    costs more than a bot's whole share of a short run (inspect 8 ms, numpy far more, in each
    of fifty processes). An answer's own `import inspect` gets the module itself."""

    def __init__(self, name, ready=None, missing=None):
        self.__name, self.__ready, self.__missing, self.__mod = name, ready, missing, None

    def __getattr__(self, attr):
        mod = self.__mod
        if mod is None:
            try:
                with pyclass.untimed():  # an import cut short would break the module for good
                    mod = importlib.import_module(self.__name)
            except ImportError:
                if self.__missing is None:
                    raise
                raise ImportError(self.__missing)
            if self.__ready is not None:
                self.__ready(mod)
            self.__mod = mod
        return getattr(mod, attr)

    def __repr__(self):
        return "<module %r (imported on first use)>" % self.__name


def _seed_numpy(mod):
    # Seeded once from the bot's seed, as the harness seeds random.
    mod.random.seed(pyclass.SEED % (2 ** 32))


np = _Lazy("numpy", _seed_numpy, "numpy is not installed for this host's Python (see config: python)")
inspect = _Lazy("inspect")

# Module-level random per game (see Handler); installed before any answer's code runs.
pyclass.ModuleRandom.install()
_stream = pyclass.ModuleRandom.current  # _stream[0]: the stream of the call served
_bot_time = pyclass.bot_time  # time inside the bot's methods (Handler.timed_call)
_clock = pyclass.time.monotonic


class Bot:
    def __init__(self, index, end_score):
        self.index = index
        self.end_score = end_score

    def update_state(self, current_throws):
        self.current_throws = current_throws

    def make_throw(self, scores, last_round):
        yield False


class ThrowTwiceBot(Bot):
    def make_throw(self, scores, last_round):
        yield True
        yield False


class GoToTenBot(Bot):
    def make_throw(self, scores, last_round):
        while sum(self.current_throws) < 10:
            yield True
        yield False


# Built-in reference bots a host can switch on; hosted by name with an empty bot.py.
BASELINES = {"ThrowTwiceBot": ThrowTwiceBot, "GoToTenBot": GoToTenBot}

# A bot must make its own throws: a class without make_throw (misspelt, say) would play
# Bot's, which never throws again, and be entered as if it played.
OWN_METHODS = {"make_throw": (Bot, "never throws again")}


def get_all_bots():
    return Bot.__subclasses__()


def namespace():
    return {
        "__name__": "forty_bots", "__builtins__": __builtins__,
        "sys": sys, "inspect": inspect, "random": random, "np": np,
        "Bot": Bot, "ThrowTwiceBot": ThrowTwiceBot, "GoToTenBot": GoToTenBot,
        "get_all_bots": get_all_bots,
    }


def competitors(ns, names_before):
    """The direct subclasses of Bot that the answer's code created (spec §1.3)."""
    return [obj for name, obj in ns.items()
            if name not in names_before and isinstance(obj, type)
            and Bot in obj.__bases__ and obj.__name__ == name]


class _Game(pyclass.Stream):
    """One game of the bot: its instance, the generator of its current turn, and (being a
    pyclass.Stream) the game's stream of the module-level random functions. One object, so
    that a call touches one record of the game rather than three: with thousands of games
    in flight in each of fifty processes, every one of them is out of the caches."""

    __slots__ = ("bot", "turn")


class Handler:
    """Per game (a _Game): the instance, the generator of its current turn, and the game's
    stream of the module-level random functions (pyclass.ModuleRandom, installed above
    before the answer's code runs): a game draws what it would have drawn played alone,
    whatever the games in flight, and a replay of one game reproduces the bots' own draws.
    The original controller played its games one after another in one process, one module
    state for all; here each game's stream is seeded one-way from the bot's seed and the
    game's number. (numpy's random stays process-wide.)"""

    # The harness's C loop (pyclass.py's _fast) serves "next" and "start" of the packed
    # form itself, as call and timed_call below do, without their frame: ("forty", the
    # stream list, the bot time list, the lost-instance exception); self.games is read once.
    FAST = ("forty", _stream, _bot_time, LostInstance)

    def __init__(self, cls):
        self.cls = cls
        self.games = {}

    def call(self, game, method, a):
        # The hot path: most calls are "next", then "start". The runner sends the arguments
        # packed (a list of ints, remote.go's AppendInts): start [last, n, n throws, scores],
        # next the throws, new [seat]; the JSON form (dicts) is read too, for tools and
        # tests that speak the protocol by hand. The lists are fresh, so they are handed to
        # the bot without a copy.
        if method == "next" or method == "start":
            g = self.games.get(game)
            if g is None:
                raise LostInstance("no instance for game %d (process restarted)" % game)
            _stream[0] = g
            bot = g.bot
            if method == "start":
                g.turn = None
                if type(a) is list:
                    n = a[1] + 2
                    throws, scores, last = a[2:n], a[n:], a[0] != 0
                else:
                    throws, scores, last = a["throws"], a["scores"], bool(a["last"])
                bot.update_state(throws)
                g.turn = iter(bot.make_throw(scores, last))
            else:
                bot.update_state(a if type(a) is list else a["throws"])
            # The turn's generator is pulled here rather than in a helper: a bot may walk
            # its stack (CopyCatBot calls inspect.stack() on every call, tens of
            # microseconds per frame), so no harness frame more than needed sits under it.
            turn = g.turn
            if turn is None:
                return False
            try:
                v = next(turn)
            except StopIteration:
                g.turn = None
                return False
            return bool(v)
        if method == "new":
            g = _Game("forty %d game %d" % (pyclass.SEED, game))
            g.bot = g.turn = None
            _stream[0] = g
            g.bot = self.cls(a[0] if type(a) is list else a["seat"], 40)
            self.games[game] = g
            return True
        if method == "end":
            g = self.games.pop(game, None)
            if g is not None:
                # The instance and its turn go here, in this call: their finalisers (a
                # __del__, a generator's finally) draw from this game's stream, not from
                # the stream of whichever game is served when the record is let go.
                _stream[0] = g
                g.bot = g.turn = None
            return True
        raise ValueError("unknown method %r" % method)

    def timed_call(self, game, method, a):
        """call, with the time inside the bot's own methods added to pyclass.bot_time (for
        kothd bench's split of the bots' CPU; the harness serves it instead of call for the
        calls it times when the runner asks for its stats): a monotonic clock read (vDSO, no
        system call) on each side of the bot's code. A copy of call's hot path rather than a
        flag in it: the reads cost a fifth of call's own work, which a call not timed should
        not pay."""
        if method == "next" or method == "start":
            g = self.games.get(game)
            if g is None:
                raise LostInstance("no instance for game %d (process restarted)" % game)
            _stream[0] = g
            bot = g.bot
            if method == "start":
                g.turn = None
                if type(a) is list:
                    n = a[1] + 2
                    throws, scores, last = a[2:n], a[n:], a[0] != 0
                else:
                    throws, scores, last = a["throws"], a["scores"], bool(a["last"])
                t0 = _clock()
                try:
                    bot.update_state(throws)
                    g.turn = iter(bot.make_throw(scores, last))
                finally:
                    _bot_time[0] += _clock() - t0
            else:
                throws = a if type(a) is list else a["throws"]
                t0 = _clock()
                try:
                    bot.update_state(throws)
                finally:
                    _bot_time[0] += _clock() - t0
            # The turn's generator is pulled here rather than in a helper: a bot may walk
            # its stack (CopyCatBot calls inspect.stack() on every call, tens of
            # microseconds per frame), so no harness frame more than needed sits under it.
            turn = g.turn
            if turn is None:
                return False
            t0 = _clock()
            try:
                v = next(turn)
            except StopIteration:
                g.turn = None
                return False
            finally:
                _bot_time[0] += _clock() - t0
            return bool(v)
        if method == "new":
            g = _Game("forty %d game %d" % (pyclass.SEED, game))
            g.bot = g.turn = None
            _stream[0] = g
            seat = a[0] if type(a) is list else a["seat"]
            t0 = _clock()
            try:
                g.bot = self.cls(seat, 40)
            finally:
                _bot_time[0] += _clock() - t0
            self.games[game] = g
            return True
        if method == "end":
            g = self.games.pop(game, None)
            if g is not None:
                # The instance and its turn go here, in this call: their finalisers (a
                # __del__, a generator's finally) draw from this game's stream, not from
                # the stream of whichever game is served when the record is let go.
                _stream[0] = g
                g.bot = g.turn = None
            return True
        raise ValueError("unknown method %r" % method)
