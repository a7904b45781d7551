"""Yardstick for White Elephant Exchange (codegolf 169235): the original driver's loop,
written anew from the rules (docs/games/whiteelephant.md, §2): every competitor in every
round with a fresh instance and a name drawn from the pool, turns in a shuffled order, steal
chains until an opening, a round's present values added to the scores, games to 500. kothd
plays K independent games (the challenge's games); so does this. As in the engine, an
exception disqualifies the class and voids the round, and the safety valve ends a round of
endless steals.
"""
import random

from yardcommon import Clock, load, option

NAMES = ("Alice Alex Albert Bob Betty Brian Carol Charlie Candace Dave Debra Donna Elizabeth "
         "Elliott Edward Fred Francis Frank George Greg Gina Hank Helen Harold Isabel Isaac Ian "
         "Justin Jennifer John Ken Kathy Kyle Lisa Leonard Link Matt Mike Melissa Nancy Nicole "
         "Nick Oliver Ophelia Opal Peter Priscilla Paul Quinn Richard Robin Rachel Sam Stephanie "
         "Steve Theo Trisha Tony Ulysses Umbra Vince Victoria Winston William Whitney Xavier "
         "Yvette Zelda Zachary").split()


class Disqualified(Exception):
    pass


def play_round(classes, pool):
    """One round; returns {class index: value held}. Raises Disqualified(index)."""
    n = len(classes)
    names = random.sample(pool, n)
    players = []
    for i, c in enumerate(classes):
        try:
            players.append((i, c(names[i])))
        except Exception:
            raise Disqualified(i)
    random.shuffle(players)
    order = [p.name for _, p in players]
    table = {}
    steals = 0
    for front in range(n):
        idx, current = players[front]
        just_stole = None
        while True:
            try:
                action = current.take_turn(order[front + 1:], dict(table), just_stole)
            except Exception:
                raise Disqualified(idx)
            try:
                steal = bool(action) and action != just_stole and action in table
                if steal and steals >= 100 * n and table[action][1] >= 3:
                    steal = False  # the engine's safety valve
            except Exception:
                steal = False
            if not steal:
                table[current.name] = (random.random(), 0)
                break
            v, c = table.pop(action)
            table[current.name] = (v, c + 1)
            steals += 1
            just_stole = current.name
            victim = next(k for k, (_, p) in enumerate(players) if p.name == action)
            idx, current = players[victim]
    return {i: table[p.name][0] for i, p in players}


def play(classes, target):
    """One game to target; returns the final scores by class index."""
    scores = [0.0] * len(classes)
    alive = list(range(len(classes)))
    pool = NAMES + ["Guest%d" % k for k in range(70, len(classes) + 1)]
    while alive and max(scores) < target:
        try:
            held = play_round([classes[i] for i in alive], pool)
        except Disqualified as d:
            del alive[d.args[0]]
            continue
        for k, v in held.items():
            scores[alive[k]] += v
    return scores


def main():
    spec, _, classes = load("whiteelephant")
    random.seed(spec.get("seed", 0))
    target = float(option(spec, "winning_score", 500))
    games = spec["games"]
    wins = [0] * len(classes)
    clock = Clock()
    for _ in range(games):
        scores = play(classes, target)
        wins[max(range(len(classes)), key=lambda i: scores[i])] += 1
    lead = max(range(len(classes)), key=lambda i: wins[i])
    clock.report(games, [classes[lead].__name__, wins[lead] / max(1, games)])


if __name__ == "__main__":
    main()
