# Four background children spin; the bot itself only waits. Each child stays under a
# per-process CPU limit for as long as it can; together they use four times as much.
for i in 1 2 3 4; do (while :; do :; done) & done
wait
echo done
