"""Highest Unique (kothd's toy game): the module every answer runs beside.

An answer is a class deriving from Player with a method pick(self, round) returning a whole
number from 1 to 10. Each round, the highest number nobody else picked scores its value.
"""
import random  # answers may use it: the harness seeds it from the bot's seed

import pyclass
from pyclass import GameRandom, LostInstance

# Per-game module-level random (GameRandom) draws through ModuleRandom, installed before any
# answer's code runs.
pyclass.ModuleRandom.install()


class Player:
    def pick(self, round):
        return 1


class Ten(Player):
    def pick(self, round):
        return 10


class Dice(Player):
    def pick(self, round):
        return random.randint(1, 10)


# Built-in bots a host can switch on (`baselines: true`), hosted by name with an empty bot.py.
BASELINES = {"Ten": Ten, "Dice": Dice}


def namespace():
    """The globals an answer's code runs in: the base class, as in the question."""
    return {"Player": Player, "random": random}


def competitors(ns, names_before):
    """Every subclass of Player the answer defined, in definition order."""
    return [v for k, v in ns.items() if k not in names_before and isinstance(v, type)
            and issubclass(v, Player) and v is not Player and v not in BASELINES.values()]


class Handler:
    """Methods: "pick" {round, seed (round 1)} -> the bot's number; "end" forgets the game.

    One process serves many games at once: each game keeps its own state of the random
    module, put in place around each of its calls, so a game draws as if played alone."""

    def __init__(self, cls):
        self.cls = cls
        self.games = {}
        self.random = GameRandom()

    def call(self, game, method, a):
        if method == "end":
            self.random.use(game)  # a finaliser that draws draws from this game's stream
            self.games.pop(game, None)
            self.random.forget(game)
            return True
        if "seed" in (a or {}):
            self.random.seed(game, a["seed"])
        self.random.use(game)
        return self._call(game, method, a)

    def _call(self, game, method, a):
        if method == "pick":
            inst = self.games.get(game)
            if inst is None:
                inst = self.games[game] = self.cls()
            n = inst.pick(a["round"])
            if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 10:
                raise ValueError("pick must return a whole number from 1 to 10, not %r" % (n,))
            return n
        raise ValueError("unknown method %r" % method)
