"""Adventurers in the Ruins (codegolf 183101): the driver's classes as answers see them.

Rules: docs/games/ruins.md; "spec" sections: §1 (interface), §3.3 (each bot's own
random.Random), §4 (conversions) of the rules kothd was written from.

The engine (engine/ruins) plays the game; this module hosts one answer's class. Calls, each
naming the seat "s" so one process can hold several instances of its class in one game:
  new {s, seed, name}  -> true: cls(name, random.Random(int(seed))), then enter_ruins()
  act {s, room, treasures, players, inventory, stamina} -> the normalised action
  end {s}              -> true: the instance is forgotten

A treasure in an act call is [name, value, weight] the first time the seat is shown it, and
its number afterwards: the seat's treasures are numbered from 0 in the order they arrive
whole (the room's list, then the inventory). The bot gets the same Treasure object each time,
as the original's rooms handed out the same objects turn after turn.

get_action's return value is converted here, with Python's own semantics (§1.3, §4), into
["next"], ["previous"], ["take", index, bid] or ["drop", index]; a value that cannot be
converted raises InvalidAction, which the engine records as a fault and turns into death by
trap. Ranges, bid limits and weights are the engine's business: it knows the game.
"""
import math
import operator
import random
import sys
import types
from collections import namedtuple

import pyclass
from pyclass import LostInstance


class Adventurer:
    def __init__(self, name, random):
        self.name = name
        self.random = random

    def get_action(self, state):
        raise NotImplementedError()

    def enter_ruins(self):
        pass


class Treasure(namedtuple("Treasure", ["name", "value", "weight"])):
    __slots__ = ()

    def __str__(self):
        return "{} (${}, {}kg)".format(self.name, self.value, self.weight)


class RoomState(namedtuple("RoomState", ["room", "treasures", "players", "inventory", "stamina"])):
    __slots__ = ()

    @property
    def carry_weight(self):
        return sum(t.weight for t in self.inventory)

    @property
    def total_value(self):
        return sum(t.value for t in self.inventory)

    def __str__(self):
        lines = ["Room #{}".format(self.room), "  Treasures:"]
        lines += ["    {}".format(t) for t in self.treasures]
        lines.append("  Other Players:")
        lines += ["    {}".format(p) for p in self.players]
        lines.append("  Your Inventory:")
        lines += ["    {}".format(t) for t in self.inventory]
        lines.append("  Stamina: {}".format(self.stamina))
        return "\n".join(lines)


class Drunkard(Adventurer):
    """The built-in filler (§5.3). The engine plays it in Go; hosted here for comparison."""

    def get_action(self, state):
        move_cost = 10 + int(math.ceil(state.carry_weight / 5))
        if state.stamina // move_cost <= state.room + 1:
            return 'previous'
        options = ['next']
        if state.room > 1:
            options.append('previous')
        if state.treasures:
            options += ['take'] * 5
        action = self.random.choice(options)
        if action == 'take':
            ti = self.random.randrange(len(state.treasures))
            treasure = state.treasures[ti]
            if treasure.weight + state.carry_weight > 50:
                return 'drop', self.random.randrange(len(state.inventory))
            extra = self.random.randrange(5) if state.players else 0
            return 'take', ti, treasure.weight + extra
        return action


BASELINES = {"Drunkard": Drunkard}


def _no_print(*args, **kwargs):
    """The scraper prepended a print that does nothing: bots cannot print."""


def namespace():
    # `from __main__ import Adventurer` must find the base class and nothing else (§1.4).
    main = types.ModuleType("__main__")
    main.Adventurer = Adventurer
    sys.modules["__main__"] = main
    return {"__name__": "ruins_bots.answer", "__builtins__": __builtins__, "__doc__": None,
            "Adventurer": Adventurer, "print": _no_print}


def competitors(ns, names_before):
    """Every Adventurer subclass in the module's namespace, helpers too, in namespace order;
    a later class with an already used name is left out (§1.4)."""
    out, seen = [], set()
    for obj in list(ns.values()):
        try:
            ok = isinstance(obj, type) and issubclass(obj, Adventurer) and obj is not Adventurer
        except Exception:
            ok = False
        if ok and obj.__name__ not in seen:
            seen.add(obj.__name__)
            out.append(obj)
    return out


class InvalidAction(pyclass.RulesAnswer):
    """get_action returned something the rules cannot read: death by trap (§4). The rules
    answer it: play, not a fault that stops the bot from playing (validation enters it)."""


_LIMIT = 10 ** 9  # beyond any stamina or room size: clamping keeps the outcome


def _clamp(v):
    return max(-_LIMIT, min(_LIMIT, v))


def _describe(value):
    try:
        text = repr(value)
    except Exception:
        text = "<%s>" % type(value).__name__
    return text if len(text) <= 200 else text[:200] + "..."


def convert(action):
    """The normalised form of get_action's return value, or InvalidAction (§1.3, §4)."""
    try:
        if action == 'next':
            return ["next"]
        if action == 'previous':
            return ["previous"]
        items = list(action)
    except InvalidAction:
        raise
    except Exception as e:
        raise InvalidAction("Invalid action %s (%s)" % (_describe(action), type(e).__name__))
    if not items:
        raise InvalidAction("Invalid action %s (empty)" % _describe(action))
    try:
        verb = items[0]
        is_take = bool(verb == 'take') and len(items) == 3
        is_drop = bool(verb == 'drop') and len(items) == 2
    except Exception:
        is_take = is_drop = False
    if is_take:
        try:
            bid = int(items[2])
        except Exception:
            raise InvalidAction("Non-integer bid %s" % _describe(items[2]))
        try:
            index = operator.index(items[1])
        except Exception:
            raise InvalidAction("Non-integer treasure index %s" % _describe(items[1]))
        return ["take", _clamp(int(index)), _clamp(bid)]
    if is_drop:
        try:
            index = int(items[1])
        except Exception:
            raise InvalidAction("Invalid drop index %s" % _describe(items[1]))
        return ["drop", _clamp(index)]
    raise InvalidAction("Invalid action %s" % _describe(action))


_new_tuple = tuple.__new__  # what a namedtuple's constructor does, without its checks


def _treasures(rows, known):
    """The treasures of an act call: a number is a treasure the seat was shown before, a
    list a new one, numbered next."""
    try:
        return list(map(known.__getitem__, rows))  # all shown before: the usual case
    except TypeError:  # a list is no index: a new treasure
        pass
    out = []
    for r in rows:
        if type(r) is int:
            out.append(known[r])
        else:
            t = _new_tuple(Treasure, r)
            known.append(t)
            out.append(t)
    return out


# The module-level random functions draw from the seat being served (pyclass.ModuleRandom):
# the rules give each bot self.random, but nothing stops one from drawing from the module.
pyclass.ModuleRandom.install()


class _Seat:
    __slots__ = ("inst", "known", "stream")

    def __init__(self, seed):
        self.inst = None
        self.known = []  # the treasures shown, by number
        self.stream = pyclass.Stream(seed)  # the seat's module-level random


class Handler:
    """Per (game, seat): the adventurer instance and the treasures it has been shown."""

    def __init__(self, cls):
        self.cls = cls
        self.games = {}

    def call(self, game, method, a):
        key = (game, a.get("s", 0))
        if method == "act":
            seat = self.games.get(key)
            if seat is None:
                raise LostInstance("no adventurer for game %d seat %d (process restarted)" % key)
            pyclass.ModuleRandom.current[0] = seat.stream
            known = seat.known
            state = _new_tuple(RoomState, (a["room"], _treasures(a["treasures"], known), a["players"],
                                           _treasures(a["inventory"], known), a["stamina"]))
            return convert(seat.inst.get_action(state))
        if method == "new":
            self._drop(key)
            seat = _Seat(a["seed"])
            pyclass.ModuleRandom.current[0] = seat.stream
            seat.inst = self.cls(a["name"], random.Random(int(a["seed"])))
            self.games[key] = seat
            seat.inst.enter_ruins()
            return True
        if method == "end":
            self._drop(key)
            return True
        raise ValueError("unknown method %r" % method)

    def _drop(self, key):
        """Lets the seat's adventurer go under the seat's own stream: its finaliser, if it
        draws, draws from it, not from the stream of whichever seat was served last."""
        seat = self.games.pop(key, None)
        if seat is not None:
            pyclass.ModuleRandom.current[0] = seat.stream
            seat.inst = None
