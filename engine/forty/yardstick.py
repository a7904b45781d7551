"""Yardstick for the forty game (codegolf 177765): the original controller's loop, written
anew from the rules (specs: forty game §2, §5): k = 8 bots drawn per game, each turn an
automatic throw then the bot's generator pulled one value at a time, the 40 reset, the final
round and the 200-pass cap, per-class statistics and the CPU time of every turn, as the
original kept them. One change the original did not have: a bot's exception ends its turn
(the engine's policy) instead of the whole run.
"""
import random
import time

from yardcommon import in_workers, load


def turn(bot, seat, scores, last, stats, throw):
    """One turn of bot in seat; updates scores[seat] and the class's statistics."""
    throws = [throw()]
    if throws[-1] != 6 and bot is not None:
        try:
            bot.update_state(throws[:])
            for more in bot.make_throw(scores[:], last):
                if not more:
                    break
                throws.append(throw())
                if throws[-1] == 6:
                    break
                bot.update_state(throws[:])
        except Exception:
            stats[8] += 1
    if throws[-1] == 6:
        if scores[seat] + sum(throws) - 6 >= 40:
            scores[seat] = 0
    else:
        scores[seat] += sum(throws)
    stats[5] += len(throws)
    stats[6] += throws[-1] != 6
    stats[7] += 1


def play(bots, stats, throw, timings):
    """One game; bots[i] (None: its constructor failed) sits in seat i."""
    k = len(bots)
    scores = [0] * k
    last, initiator, passes = False, -1, 0
    clock = time.process_time
    while not last:
        for i, bot in enumerate(bots):
            t0 = clock()
            turn(bot, i, scores, last, stats[i], throw)
            timings[i] += clock() - t0
            if scores[i] >= 40 and not last:
                last, initiator = True, i
        passes += 1
        if passes >= 200:
            last, initiator = True, k
    for i, bot in enumerate(bots[:initiator]):
        t0 = clock()
        turn(bot, i, scores, last, stats[i], throw)
        timings[i] += clock() - t0
    best = max(scores)
    for i in range(k):
        s = stats[i]
        s[3] += scores[i]
        s[2] = max(s[2], scores[i])
        if scores[i] == best:
            s[0] += 1
            s[4] += scores[i]
    return passes


def main():
    spec, _, classes = load("forty")
    random.seed(spec.get("seed", 0))
    n = len(classes)
    k = 8 if n >= 8 else 4 if n >= 4 else n
    throw = lambda: random.randint(1, 6)  # noqa: E731  the original's throw_die

    def play_games(games):
        """games games, as one of the original's workers (Controller.simulate_games)."""
        # per class: wins, played, max, score sum, won score sum, throws, successes, turns, errors
        stats = [[0] * 9 for _ in classes]
        timings = [0.0] * n
        for _ in range(games):
            seats = random.sample(range(n), k)
            bots = []
            for seat, c in enumerate(seats):
                stats[c][1] += 1
                try:
                    bots.append(classes[c](seat, 40))
                except Exception:
                    stats[c][8] += 1
                    bots.append(None)
            seat_timings = [0.0] * k
            play(bots, [stats[c] for c in seats], throw, seat_timings)
            for seat, c in enumerate(seats):
                timings[c] += seat_timings[seat]
        lead = max(range(n), key=lambda c: stats[c][0] / max(1, stats[c][1]))
        return [classes[lead].__name__, stats[lead][0] / max(1, stats[lead][1])]

    in_workers(spec, play_games)


if __name__ == "__main__":
    main()
