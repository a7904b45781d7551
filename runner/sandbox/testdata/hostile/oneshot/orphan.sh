# Answers at once, leaving children behind that outlive it.
. ./targets.sh
setsid sleep "$MARKER.1" </dev/null >/dev/null 2>&1 &
(sleep "$MARKER.2" </dev/null >/dev/null 2>&1 &)
nohup sleep "$MARKER.3" </dev/null >/dev/null 2>&1 &
echo 1
