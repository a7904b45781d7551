"""Forty game (codegolf 177765): the base module every answer was appended to (spec §1.1)."""
import inspect
import random
import sys

import pyclass
from pyclass import LostInstance


class _LazyNumpy:
    """numpy, pre-bound as np like in the original module, imported on first use: most bots
    never touch it and importing it costs more than starting the harness. On import it is
    seeded once from the bot's seed, as the harness seeds random."""

    _mod = None

    def __getattr__(self, name):
        mod = _LazyNumpy._mod
        if mod is None:
            try:
                with pyclass.untimed():  # an import cut short would break numpy for good
                    import numpy as mod
            except ImportError:
                raise ImportError("numpy is not installed for this host's Python (see config: python)")
            mod.random.seed(pyclass.SEED % (2 ** 32))
            _LazyNumpy._mod = mod
        return getattr(mod, name)


np = _LazyNumpy()


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


class Handler:
    """Per game: the instance and the generator of its current turn.

    Python's random module stays process-wide, as in the original controller (which played
    all its games in one process, one module state for all). Keeping it per game
    (pyclass.GameRandom, as White Elephant does) would let a replay of one game reproduce
    the bots' own draws too, but costs a random.getstate() and setstate() per call:
    15-35 us measured on the 2-core reference host, against about 2 us for the rest of a
    call, for a game whose ~110 calls per game are its whole cost."""

    def __init__(self, cls):
        self.cls = cls
        self.games = {}

    def call(self, game, method, a):
        # The hot path: most calls are "next", then "start"; the JSON decoder made the
        # lists fresh, so they are handed to the bot without a copy.
        if method == "next" or method == "start":
            inst = self.games.get(game)
            if inst is None:
                raise LostInstance("no instance for game %d (process restarted)" % game)
            if method == "next":
                inst[0].update_state(a["throws"])
                return self._next(inst)
            inst[1] = None
            inst[0].update_state(a["throws"])
            inst[1] = iter(inst[0].make_throw(a["scores"], bool(a["last"])))
            return self._next(inst)
        if method == "new":
            self.games[game] = [self.cls(a["seat"], 40), None]
            return True
        if method == "end":
            self.games.pop(game, None)
            return True
        raise ValueError("unknown method %r" % method)

    @staticmethod
    def _next(inst):
        if inst[1] is None:
            return False
        try:
            v = next(inst[1])
        except StopIteration:
            inst[1] = None
            return False
        return bool(v)
