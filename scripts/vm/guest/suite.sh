#!/bin/bash
# The VM suite, run inside the VM as /host/run.sh (scripts/vm/suite.sh puts it there with
# the kothd binary, the Go test binaries and the repository's files). As a host would: the
# Go tests that exercise cgroups, bwrap and the protocols, as root and as an unprivileged
# user in a delegated cgroup; the quick start of docs/deploy.md as written; then the
# daemon under the live systemd (readiness, reload, stop, kill -9, watchdog, reboot).
#
# Each step prints "=== STEP name" and "--- PASS name (Ns)" or "--- FAIL name (Ns)"; the
# exit status is the number of failed steps (capped at 199). Exit 200 asks the runner for
# a reboot: the reboot step resumes from $OUT/phase.
set -u
H=/host
OUT=$H/out
SRC=/opt/kothd/src
BIN=/host/bin # run from the share: copying 100 MB of test binaries over 9p takes a minute under TCG
CONF=/etc/kothd/config.yaml
phase=$(cat "$OUT/phase" 2>/dev/null || echo start)
fails=$(cat "$OUT/fails" 2>/dev/null || echo 0)

log() { echo "suite: $*"; }
# $H/only, if there, is a regular expression of the steps to run (scripts/vm/suite.sh
# --only): the others say so and are not run, but for install, which every later step
# needs (the tests run in its copy of the sources).
only=$(cat "$H/only" 2>/dev/null || true)
step() {
  local name=$1 t=$SECONDS; shift
  if [ -n "$only" ] && [ "$name" != install ] && ! [[ $name =~ $only ]]; then echo "--- NOT RUN $name (--only)"; return 0; fi
  echo "=== STEP $name"
  if "$@"; then
    echo "--- PASS $name ($((SECONDS - t))s)"
  else
    echo "--- FAIL $name ($((SECONDS - t))s)"
    fails=$((fails + 1)); echo "$fails" >"$OUT/fails"; echo "$name" >>"$OUT/failed"
  fi
}
# wait_for SECONDS CMD...: polls CMD every second until it succeeds.
wait_for() {
  local n=$1; shift
  for ((i = 0; i < n; i++)); do "$@" >/dev/null 2>&1 && return 0; sleep 1; done
  "$@"
}
kstatus() { kothd status --config "$CONF" --json; }
# The long run's challenge (start_long_run): forty, made long.
LONG=forty
run_state() { kstatus | jq -r --arg c "${1:-$LONG}" '.challenges[] | select(.name==$c) | .last_run.state // "none"'; }
run_id() { kstatus | jq -r --arg c "$LONG" '.challenges[] | select(.name==$c) | .last_run.id // 0'; }
played() { kstatus | jq -r --arg c "$LONG" '.challenges[] | select(.name==$c) | (.live.done // .last_run.games_played // 0)'; }
mainpid() { systemctl show -P MainPID kothd; }
journal_since() { journalctl -u kothd -o cat --since "@$1" --no-pager; }
# What the daemon logs when it plays an interrupted run again (cron/record.go): from its
# checkpoint, or from game 0 with its seed when it was stopped before the first one.
RESUMED='resuming an interrupted run from its checkpoint|playing an interrupted run again with its seed'

# ---- the machine, as a host has it ----
machine() {
  local ok=0
  log "PID 1: $(cat /proc/1/comm); systemd $(systemctl --version | head -1 | cut -d' ' -f2); kernel $(uname -r)"
  log "cgroup fs: $(stat -fc %T /sys/fs/cgroup); root controllers: $(cat /sys/fs/cgroup/cgroup.controllers)"
  log "bwrap $(bwrap --version 2>&1); python3 $(python3 -c 'import sys, numpy; print(sys.version.split()[0], "numpy", numpy.__version__)')"
  [ "$(cat /proc/1/comm)" = systemd ] || { log "PID 1 is not systemd"; ok=1; }
  [ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ] || { log "/sys/fs/cgroup is not cgroup v2 only"; ok=1; }
  for c in cpu memory pids; do grep -qw "$c" /sys/fs/cgroup/cgroup.controllers || { log "no $c controller"; ok=1; }; done
  return $ok
}

install_files() {
  rm -rf /opt/kothd && mkdir -p /opt/kothd && cp -r "$H/src" /opt/kothd/ && chmod -R a+rX /opt/kothd
}

# ---- Go tests: gotest WHO PKG REGEX [SKIP-REGEX] ----
# Run as a host runs kothd: a systemd service with a delegated cgroup (Delegate=yes). WHO
# root, or unprivileged: a dynamic user without capabilities, as deploy/kothd.service.
gotest() {
  local who=$1 pkg=$2 run=$3 skip=${4:-^$}
  local bin=$BIN/tests/$(echo "$pkg" | tr / _).test
  local logf=$OUT/tests/$who-$(echo "$pkg" | tr / _).log
  mkdir -p "$OUT/tests"
  local props=(-p Delegate=yes -p "WorkingDirectory=$SRC/$pkg" -p LimitNOFILE=65536 -p TasksMax=4096 -E HOME=/tmp -E TMPDIR=/tmp)
  if [ "$who" = unprivileged ]; then
    props+=(-p DynamicUser=yes -p NoNewPrivileges=yes -p CapabilityBoundingSet= -p ProtectHome=tmpfs
      -p BindReadOnlyPaths=-/root/.pyenv/versions/2.7.18)
  fi
  # A unit name of its own, so that what systemd says of it (a failure to set it up, which
  # --quiet keeps off the pipe) can be read back from the journal.
  local unit=vmtest-$who-$(echo "$pkg" | tr / -)-$SECONDS
  systemd-run --quiet --wait --pipe --collect --unit="$unit" "${props[@]}" -- \
    "$bin" -test.v -test.count=1 -test.timeout 20m -test.run "$run" -test.skip "$skip" >"$logf" 2>&1
  local rc=$?
  if [ $rc -ne 0 ]; then journalctl -u "$unit" -o cat --no-pager | tail -15 | sed "s|^|  [$who $pkg systemd] |"; fi
  grep -E '^(--- |ok|FAIL|PASS|panic)|^\s+--- (FAIL|SKIP)' "$logf" | grep -vE '^\s*--- PASS' | sed "s|^|  [$who $pkg] |"
  grep -A3 -E '^\s*--- SKIP' "$logf" | grep -vE '^\s*--- SKIP' | grep -vE '^(=== |--- |--$)' | head -20 | sed "s|^|  [$who $pkg skip] |"
  echo "  [$who $pkg] $(grep -cE '^\s*--- PASS' "$logf") passed, $(grep -cE '^\s*--- FAIL' "$logf") failed, $(grep -cE '^\s*--- SKIP' "$logf") skipped (log: out/tests/$(basename "$logf"))"
  if [ $rc -ne 0 ]; then tail -30 "$logf"; fi
  return $rc
}

# ---- the quick start of docs/deploy.md, as written (quickstart.sh) ----
quickstart() {
  local t0; t0=$(date +%s)
  if ! (cd "$SRC" && bash -ex "$H/quickstart.sh") || ! systemctl is-active kothd; then
    systemctl status --no-pager kothd | head -20
    journalctl -u kothd -o cat --no-pager | tail -40
    return 1
  fi
}

# `kothd once` as root from a shell (here: the runner's service, whose cgroup holds other
# processes, as a login session's does), then in a scope of its own with Delegate=yes, as
# docs/deploy.md says to run it on a cgroup v2 host. On a copy of the daemon's database
# (`kothd backup`, beside the running daemon) after its first run: the answers are
# validated, so the cycle goes straight to play (--force: nothing changed since the
# daemon's run), which is what the scope is for.
once_from_shell() {
  local ok=0 d=/tmp/once
  rm -rf $d && mkdir -p $d/data
  kothd backup --config "$CONF" $d/data/kothd.db || { log "no backup of the daemon's database"; return 1; }
  sed -e "s|^data_dir: .*|data_dir: $d/data|" -e "s|^output_dir: .*|output_dir: $d/out|" "$CONF" >$d/config.yaml
  log "kothd once in a shared cgroup:"
  "$BIN/kothd" once --config $d/config.yaml --snapshot "$SRC/testdata/snapshot" --challenge forty --force --games 100 >$d/shared.log 2>&1
  local rc=$?
  log "exit $rc: $(grep -iE 'cgroup|preflight|error' $d/shared.log | head -3)"
  # It refuses to play (cgroups: required) and says how to run it instead.
  [ $rc -ne 0 ] && grep -q 'systemd-run --scope -p Delegate=yes' $d/shared.log || { log "no refusal naming the way out"; ok=1; }
  log "kothd once in a scope with Delegate=yes:"
  systemd-run --scope --quiet -p Delegate=yes "$BIN/kothd" once --config $d/config.yaml --snapshot "$SRC/testdata/snapshot" --challenge forty --force --games 100 >$d/scope.log 2>&1 ||
    { tail -20 $d/scope.log; ok=1; }
  tail -3 $d/scope.log
  grep -qE '^forty: 100 games in ' $d/scope.log || { log "the scope's cycle did not play its 100 games"; ok=1; }
  test -f $d/out/forty.md || { log "no board"; ok=1; }
  return $ok
}

boards_published() {
  # The first run of forty plays, publishes, and the boards are readable by www-data only.
  systemctl is-active kothd || return 1
  wait_for 900 test -f /srv/kothd/forty.md || { journalctl -u kothd -o cat --no-pager | tail -30; return 1; }
  ls -la /srv/kothd
  local ok=0
  [ "$(stat -c %G /srv/kothd/forty.md)" = www-data ] || { log "forty.md not in group www-data"; ok=1; }
  sudo -u www-data head -5 /srv/kothd/forty.md || { log "www-data cannot read the board"; ok=1; }
  if sudo -u nobody cat /srv/kothd/forty.md >/dev/null 2>&1; then log "nobody can read the board"; ok=1; fi
  kothd status --config "$CONF"
  [ "$(run_state forty)" = done ] || { log "forty's last run: $(run_state forty)"; ok=1; }
  return $ok
}

# A run in progress: forty again, long enough to be stopped midway under emulation. A
# reload that changes what a run plays (games: docs/config.md) and gives forty a schedule
# of every 15 seconds has it played at the next tick, with the bots its first run built and
# validated (a challenge added under another name would validate them all again: minutes
# under emulation).
start_long_run() {
  if ! grep -q "^    games: 200000" "$CONF"; then
    sed -i -e 's|^    games: 2000$|    games: 200000\n    schedule: "*/15 * * * * *"|' "$CONF"
    grep -q "^    games: 200000" "$CONF" || { log "no games: 2000 line in forty's block"; return 1; }
    systemctl reload kothd
  fi
  wait_for 180 sh -c '[ "$(kothd status --config '"$CONF"' --json | jq -r ".challenges[] | select(.name==\"'$LONG'\") | .last_run.state")" = playing ]'
}

readiness() {
  # Type=notify: `systemctl restart` returns once READY=1 came; a failing preflight is a
  # failed start, reported by systemctl itself.
  local ok=0 t
  t=$(date +%s)
  systemctl restart kothd || { log "restart failed"; ok=1; }
  [ "$(systemctl show -P ActiveState kothd)" = active ] || { log "not active after restart"; ok=1; }
  log "OOMPolicy $(systemctl show -P OOMPolicy kothd), Delegate $(systemctl show -P Delegate kothd), DefaultOOMPolicy $(systemctl show -P DefaultOOMPolicy)"
  [ "$(systemctl show -P OOMPolicy kothd)" = continue ] || { log "a bot's OOM kill would stop the service"; ok=1; }
  journal_since "$t" | grep -q '"ready' || journal_since "$t" | grep -qi 'ready' || { log "no readiness line in the journal"; ok=1; }
  # A config with a mistake: the start fails and says why.
  cp "$CONF" /tmp/config.good
  sed -i 's/^    games: /    gmes: /' "$CONF"
  t=$(date +%s)
  if systemctl restart kothd; then log "a start with a bad config succeeded"; ok=1; fi
  journal_since "$t" | grep -m3 -i 'gmes' || { log "the journal does not name the mistake"; ok=1; }
  cp /tmp/config.good "$CONF"
  systemctl reset-failed kothd
  systemctl restart kothd || { log "restart with the good config failed"; ok=1; }
  return $ok
}

reload() {
  local ok=0 t pid
  pid=$(mainpid)
  t=$(date +%s)
  sed -i 's|^schedule: .*|schedule: "30 5 * * *"|' "$CONF"
  systemctl reload kothd || { log "reload failed"; ok=1; }
  wait_for 60 sh -c "journalctl -u kothd -o cat --since @$t | grep -q 'config reloaded'" || { log "no 'config reloaded'"; ok=1; }
  journal_since "$t" | grep 'config reloaded'
  t=$(date +%s)
  sed -i 's|^schedule: .*|schedule: "not a schedule"|' "$CONF"
  systemctl reload kothd || { log "reload (bad config) failed"; ok=1; }
  wait_for 60 sh -c "journalctl -u kothd -o cat --since @$t | grep -q 'reload refused'" || { log "no 'reload refused'"; ok=1; }
  journal_since "$t" | grep -E 'reload'
  [ "$(systemctl show -P ActiveState kothd)" = active ] && [ "$(mainpid)" = "$pid" ] || { log "the daemon did not go on after a refused reload"; ok=1; }
  sed -i 's|^schedule: .*|schedule: "30 5 * * *"|' "$CONF"
  return $ok
}

stop_mid_run() {
  local ok=0 id t
  start_long_run || { log "no run in progress"; return 1; }
  # Games under way if they come within a minute (the status counts them at checkpoints);
  # a stop while the run still validates its bots is a stop mid-run too.
  wait_for 60 sh -c '[ "$(kothd status --config '"$CONF"' --json | jq -r "[.challenges[] | select(.name==\"'$LONG'\") | .live.done // 0][0]")" -gt 0 ]'
  id=$(run_id)
  log "run $id playing, $(played) games done; stopping"
  t=$SECONDS
  systemctl stop kothd
  log "systemctl stop took $((SECONDS - t))s"
  [ $((SECONDS - t)) -le 30 ] || { log "stop was not prompt"; ok=1; }
  kothd status --config "$CONF" | grep -E 'run [0-9]+ started' | head -2
  [ "$(run_state)" = interrupted ] || { log "run state after stop: $(run_state)"; ok=1; }
  t=$(date +%s)
  systemctl start kothd || ok=1
  wait_for 120 sh -c "journalctl -u kothd -o cat --since @$t | grep -qE \"$RESUMED\"" || { log "the next start did not resume"; ok=1; }
  journal_since "$t" | grep -E "$RESUMED" | head -3
  wait_for 60 sh -c '[ "$(kothd status --config '"$CONF"' --json | jq -r ".challenges[] | select(.name==\"'$LONG'\") | .last_run.state")" = playing ]' || ok=1
  return $ok
}

kill9_mid_run() {
  local ok=0 pid t n0
  [ "$(run_state)" = playing ] || start_long_run || return 1
  pid=$(mainpid); n0=$(systemctl show -P NRestarts kothd)
  log "kill -9 $pid while run $(run_id) plays"
  t=$(date +%s)
  kill -9 "$pid"
  # Restart=on-failure, RestartSec (the test drop-in shortens it to 5s)
  wait_for 120 sh -c "[ \$(systemctl show -P NRestarts kothd) -gt $n0 ] && [ \$(systemctl show -P ActiveState kothd) = active ]" ||
    { log "not restarted"; ok=1; }
  log "restarted: NRestarts $(systemctl show -P NRestarts kothd), pid $(mainpid)"
  wait_for 120 sh -c "journalctl -u kothd -o cat --since @$t | grep -qE \"$RESUMED\"" || { log "the restarted daemon did not resume the run"; ok=1; }
  journal_since "$t" | grep -E "$RESUMED|abandon" | head -3
  return $ok
}

watchdog() {
  # A wedged daemon (SIGSTOP: it neither pings nor answers signals) is restarted once
  # WatchdogSec passes (the test drop-in shortens it to 60s, TimeoutAbortSec to 10s).
  local ok=0 pid n0 t
  pid=$(mainpid); n0=$(systemctl show -P NRestarts kothd)
  t=$(date +%s)
  kill -STOP "$pid"
  wait_for 180 sh -c "[ \$(systemctl show -P NRestarts kothd) -gt $n0 ] && [ \$(systemctl show -P ActiveState kothd) = active ]" ||
    { log "not restarted by the watchdog"; ok=1; }
  journalctl -u kothd --since "@$t" --no-pager | grep -iE 'watchdog' | head -3
  journalctl -u kothd --since "@$t" --no-pager | grep -qi 'watchdog timeout' || { log "the journal has no watchdog timeout"; ok=1; }
  [ "$(mainpid)" != "$pid" ] || ok=1
  return $ok
}

reboot_mid_run() {
  case "$phase" in
    reboot-done)
      local ok=0
      log "after the reboot: kothd $(systemctl is-active kothd), last run $(run_state)"
      systemctl is-active kothd || ok=1
      wait_for 180 sh -c "journalctl -u kothd -b -o cat | grep -qE \"$RESUMED\"" || { log "no resume after the reboot"; ok=1; }
      journalctl -u kothd -b -o cat | grep -E "$RESUMED|abandon" | head -3
      return $ok ;;
    *)
      [ "$(run_state)" = playing ] || start_long_run || return 1
      log "rebooting while run $(run_id) plays ($(played) games done)"
      echo reboot-done >"$OUT/phase"
      exit 200 ;;
  esac
}

pause_daemon() {
  # The Go tests after these steps want the CPUs: the interrupted run waits for the reboot step.
  systemctl stop kothd
}

if [ "$phase" = start ]; then
  step machine machine
  step install install_files
  step quickstart quickstart
  step boards boards_published
  step once-from-a-shell once_from_shell
  step readiness readiness
  step reload reload
  step stop-mid-run stop_mid_run
  step kill9-mid-run kill9_mid_run
  step watchdog watchdog
  step pause-daemon pause_daemon
  . "$H/tests.sh" # the gotest lines: which packages and tests, as whom
  systemctl start kothd
  step reboot-mid-run reboot_mid_run
else
  step reboot-mid-run reboot_mid_run
fi
journalctl -u kothd -o cat --no-pager >"$OUT/kothd-journal.log" 2>&1
journalctl --no-pager >"$OUT/journal.log" 2>&1 # every boot's
# What the kernel's and systemd's OOM handling said (a bot killed for memory must never
# take the service with it: OOMPolicy).
grep -iE 'oom|out of memory' "$OUT/journal.log" | grep -v 'vm-runner' | tail -20
echo "suite: $fails step(s) failed"
[ "$fails" -le 199 ] || fails=199
exit "$fails"
