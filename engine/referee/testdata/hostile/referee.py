# A hostile referee for engine/referee's tests: game g misbehaves in way g % 7 (or in
# options.only's way in every game). Way 0 plays properly; "spy" looks for what it must not
# see and logs it.
import json, os, sys, time

def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()

def ask(seat, msg):
    send({"ask": seat, "msg": msg})
    return json.loads(sys.stdin.readline())

game = json.loads(sys.stdin.readline())
opts = game.get("options") or {}
way = opts.get("only", game["game"] % 7)
if way == "chatter":
    while True:                               # logs for ever, every line in time
        send({"log": "still thinking"})
if way == "spy":
    seen = []
    for p in opts.get("paths", []):
        try:
            seen.append("%s: %s" % (p, os.listdir(p)))
        except OSError:
            pass
    if any(k.startswith("KOTHD_TEST_SECRET") for k in os.environ):
        seen.append("the host's environment")
    send({"log": "referee: " + ("; ".join(seen) or "blind")})
    for s in range(game["seats"]):
        send({"log": "bot: " + ask(s, "spy").get("reply", "?")})
    send({"result": {"scores": [0] * game["seats"]}})
    sys.exit(0)
ask(0, "move 1 -")
if way == 0:
    ask(1, "move 1 -")
    send({"result": {"scores": [1, 0]}})
elif way == 1:
    time.sleep(3600)                          # hangs
elif way == 2:
    raise RuntimeError("the referee's own bug")  # crashes mid-game
elif way == 3:
    print("hello there", flush=True)          # garbage
elif way == 4:
    ask(7, "move 2 -")                        # a seat that does not exist
elif way == 5:
    send({"result": {"scores": [1, 2, 3]}})   # a result for three seats of two
elif way == 6:
    sys.stdout.write("x" * (2 << 20))         # a line past the output limit
    sys.stdout.flush()
    time.sleep(3600)
