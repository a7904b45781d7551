#!/usr/bin/env python3
"""Rock-paper-scissors, refereed for kothd (docs/referee.md): a complete referee to copy.

kothd writes one JSON line to start a game; this referee then writes requests, one JSON
object per line, and reads kothd's answer to each ask before writing the next line:

  kothd  -> {"game": 3, "seed": 123, "seats": 2, "names": ["A", "B"], "options": {...}}
  ref    -> {"asks": [{"seat": 0, "msg": "move 1 -", "expect": "[RPS]"}, ...]}
  kothd  -> {"replies": [{"seat": 0, "reply": "R"}, {"seat": 1, "reply": "", "fault": "timeout"}]}
  ref    -> {"log": "round 1: R beats -"}        (no answer)
  ref    -> {"result": {"scores": [12, 8], "stats": {"Ties": [3, 3]}}}

Each bot reads "move ROUND THEIR_LAST" (THEIR_LAST is R, P, S or - in round 1) and answers
R, P or S. A bot whose decision faulted (timeout, crash, bad output, benched) plays nothing
that round and loses it. Rounds per game: options.rounds (default 20).
"""
import json
import random
import sys

BEATS = {"R": "S", "P": "R", "S": "P"}  # each move and the move it beats


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def receive():
    line = sys.stdin.readline()
    if not line:  # kothd closed the pipe: the run is over
        sys.exit(0)
    return json.loads(line)


def play_round(rnd, last):
    """Ask both seats at once for a move; returns each seat's move, None for a fault."""
    send({"asks": [{"seat": s, "msg": "move %d %s" % (rnd, last[1 - s] or "-"), "expect": "[RPS]"}
                   for s in (0, 1)]})
    moves = [None, None]
    for r in receive()["replies"]:
        if "fault" not in r:
            moves[r["seat"]] = r["reply"]
    return moves


def main():
    game = receive()
    if game["seats"] != 2:
        send({"log": "rock-paper-scissors seats two bots"})
        sys.exit(1)  # kothd voids the game, the host's fault: fix the config's shape
    rounds = int((game.get("options") or {}).get("rounds", 20))
    # The referee's own randomness comes from the game's seed alone: a replay is exact.
    rng = random.Random(game["seed"])
    points, ties = [0, 0], [0, 0]
    last = [None, None]
    for rnd in range(1, rounds + 1):
        a, b = play_round(rnd, last)
        if a is None and b is None:
            winner = None
        elif b is None or (a is not None and BEATS[a] == b):
            winner = 0
        elif a is None or BEATS[b] == a:
            winner = 1
        else:
            winner = None
            ties[0] += 1
            ties[1] += 1
        if winner is not None:
            points[winner] += 1
        last = [a, b]
        if rng.random() < 0.1:  # a sample of rounds in the log, drawn from the seed
            send({"log": "round %d: %s vs %s" % (rnd, a or "-", b or "-")})
    send({"result": {"scores": points, "stats": {"Ties": ties}}})


if __name__ == "__main__":
    main()
