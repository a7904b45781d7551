"""White Elephant Exchange (codegolf 169235): the driver's base class and built-in bots
(spec §1.1, §1.2), and the per-game instances the engine talks to.

The engine owns the game (present table, turn order, scores); this module only hosts bot
code. For every call it builds fresh Python objects from the engine's message, asks the bot,
and applies the driver's acceptance test to the answer in Python (spec §1.4, §2.4), so odd
return values behave as they did in the original (a str subclass equal to a name steals;
0, '' and False open).
"""
import random
import sys
import types

import pyclass
from pyclass import GameRandom, LostInstance

# Per-game module-level random (GameRandom) draws through ModuleRandom, installed before any
# answer's code runs.
pyclass.ModuleRandom.install()

_MAX_STEALS = 3  # the driver's constant; submissions do not see it (spec §1.1)


class WhiteElephantBot:
    def __init__(self, name):
        self.name = name

    def steal_targets(self, presents, just_stole):
        return [name for name, value in presents.items()
                if value[1] < _MAX_STEALS and name != just_stole]


class RandomBot(WhiteElephantBot):
    def take_turn(self, players, presents, just_stole):
        return random.choice([None] + self.steal_targets(presents, just_stole))


class GreedyBot(WhiteElephantBot):
    def take_turn(self, players, presents, just_stole):
        targets = self.steal_targets(presents, just_stole)
        if targets:
            return max(targets, key=lambda name: presents[name][0])
        return None


class NiceBot(WhiteElephantBot):
    def take_turn(self, players, presents, just_stole):
        return None


# The built-in competitors (spec §1.2), hosted by name with an empty bot.py.
BASELINES = {"RandomBot": RandomBot, "GreedyBot": GreedyBot, "NiceBot": NiceBot}

# What `from white_elephant import WhiteElephantBot` finds: the same class object, so an
# answer that kept its local import line competes (spec §1.3, engine normalisation).
white_elephant = types.ModuleType("white_elephant", "The White Elephant driver, as seen by answers.")
white_elephant.WhiteElephantBot = WhiteElephantBot
white_elephant.RandomBot = RandomBot
white_elephant.GreedyBot = GreedyBot
white_elephant.NiceBot = NiceBot
sys.modules["white_elephant"] = white_elephant


def namespace():
    """The driver executes an answer with only WhiteElephantBot bound (spec §1.3)."""
    return {"WhiteElephantBot": WhiteElephantBot}


def competitors(ns, names_before):
    """Every subclass of WhiteElephantBot in the namespace, direct or not, in insertion
    order (helper base classes compete too). Built-ins an answer imported are not its own;
    a second class object under an already listed name is dropped (the engine excludes
    duplicates across answers the same way)."""
    out, seen = [], set()
    for obj in list(ns.values()):
        try:
            ok = isinstance(obj, type) and issubclass(obj, WhiteElephantBot) and obj is not WhiteElephantBot
        except Exception:
            ok = False
        if not ok or any(obj is b for b in BASELINES.values()) or obj.__name__ in seen:
            continue
        seen.add(obj.__name__)
        out.append(obj)
    return out


def table_of(rows, values):
    """The driver's present dict from the engine's table, a flat list [holder, present,
    steals, ...] in table order, where present numbers the round's openings (values[present]
    is its value, sent once per round to each process: see Handler)."""
    it = iter(rows)
    return {holder: (values[i], steals) for holder, i, steals in zip(it, it, it)}


def accept(action, table, just_stole):
    """The driver's test of a take_turn answer (spec §2.4), against the harness's own copy
    of the table. Returns the engine's reply: the table index of the present to steal, None
    to open, or {"p": why} when the policy resolved an answer the driver would have crashed
    on by opening (§4)."""
    try:
        if action and action != just_stole and action in table:
            h = hash(action)
            for i, key in enumerate(table):
                if hash(key) == h and (key is action or key == action):
                    return i
        return None
    except Exception as e:
        return {"p": "answer %s could not be tested (%s: %s); opened a present"
                % (_short_repr(action), type(e).__name__, e)}


def _short_repr(x):
    try:
        r = repr(x)
    except Exception:
        r = "<%s>" % type(x).__name__
    return r if len(r) <= 80 else r[:77] + "..."


class _Seat:
    """A game's current round as this process sees it: the instance, the waiting players
    its first turn was given, and the values of the presents opened so far (in opening
    order; each sent once)."""

    __slots__ = ("inst", "players", "values")

    def __init__(self, inst, players):
        self.inst, self.players, self.values = inst, players, []


class Handler:
    """Per game: this class's instance for the current round, and the game's own state of
    Python's random module.

    Methods: "seed" {seed} seeds Python's random at the start of a game (spec §3); "end"
    forgets the game; "turn" asks the round's instance to move:

        {"n": name, "p": [waiting...], "v": [values...], "t": [holder, present, steals, ...],
         "j": just_stole}

    "n" comes with the player's first turn of a round (spec §2.3): it makes the instance
    and starts the round's state, and "p" is then the list of players still waiting; on
    later turns of the round "p" is how many of them are still waiting (the last ones of
    that list: the order only moves on). "v" holds the values of the presents opened since
    this process's last turn in the round, in opening order, so "t" names a present by its
    number; every value sent is one the table already shows. "j" is absent for None.

    Each game keeps its own state of Python's random module (pyclass.GameRandom), so a
    replay of one game reproduces it."""

    def __init__(self, cls):
        self.cls = cls
        self.games = {}  # game -> _Seat
        self.random = GameRandom()

    def call(self, game, method, a):
        if method == "turn":
            self.random.use(game)
            return self._turn(game, a)
        if method == "seed":
            self.games.pop(game, None)
            self.random.seed(game, a["seed"])
            return True
        if method == "end":
            # Under the game's own stream: the instance's finaliser, if it draws, must not
            # draw from the stream of whichever game was called last.
            self.random.use(game)
            self.games.pop(game, None)
            self.random.forget(game)
            return True
        raise ValueError("unknown method %r" % method)

    def _turn(self, game, a):
        name = a.get("n")
        if name is not None:
            self.games.pop(game, None)  # a constructor that raises leaves none
            seat = self.games[game] = _Seat(self.cls(name), a["p"])
            players = list(seat.players)  # the bot's copy
        else:
            seat = self.games.get(game)
            if seat is None:
                raise LostInstance("no instance for game %d (process restarted)" % game)
            waiting = seat.players
            players = waiting[len(waiting) - a["p"]:]
        v = a.get("v")
        if v:
            seat.values += v
        table = table_of(a["t"], seat.values)
        just_stole = a.get("j")
        action = seat.inst.take_turn(players, dict(table), just_stole)
        return accept(action, table, just_stole)
