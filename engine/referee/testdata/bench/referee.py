# The relay benchmark's referee (bench_test.go): asks seat 0 options.asks times, through
# kothd ("relay") or straight through a pipe to its own copy of the bot ("direct"), and
# reports the wall time of the exchanges in its result's column ns.
import json, subprocess, sys, time

def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()

game = json.loads(sys.stdin.readline())
opts = game["options"]
n = int(opts["asks"])
start = time.perf_counter()
if opts["mode"] == "direct":
    bot = subprocess.Popen([sys.executable, "bot.py"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    for i in range(n):
        bot.stdin.write("ping %d\n" % i)
        bot.stdin.flush()
        bot.stdout.readline()
    bot.stdin.close()
    bot.wait()
else:
    for i in range(n):
        send({"ask": 0, "msg": "ping %d" % i})
        sys.stdin.readline()
send({"result": {"scores": [0], "stats": {"ns": [(time.perf_counter() - start) * 1e9]}}})
