#!/usr/bin/env bash
# The VM suite (./test.sh --vm): kothd tested where hosts run it. Builds the kothd binary
# and the Go test binaries on this machine, boots the Debian 12 image (image.sh; systemd
# PID 1, cgroup v2 only) with them shared over 9p, runs guest/suite.sh inside (the Go tests
# of guest/tests.sh as root and as an unprivileged dynamic user, the quick start of
# docs/deploy.md as written, the daemon under the live systemd) and exits with its status:
# 0 when every step passed. Never skips: a VM that cannot boot is a failure that says why.
#
#   scripts/vm/suite.sh [--keep DIR] [--only REGEX]
#       --keep DIR    lay out the share in DIR and keep it (out/ has every log)
#       --only REGEX  run only the steps whose names match (machine|install|quickstart, …)
#
# Needs: Go (builds), root the first time (vm.sh deps, image.sh's debootstrap).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
dir="" only="" keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --keep) dir=$2 keep=1; mkdir -p "$dir"; shift 2 ;;
    --only) only=$2; shift 2 ;;
    *) echo "usage: $0 [--keep DIR] [--only REGEX]" >&2; exit 2 ;;
  esac
done
[ -n "$dir" ] || { dir=$(mktemp -d "${TMPDIR:-/tmp}/kothd-vm.XXXXXX"); trap 'rm -rf "$dir"' EXIT; }
dir=$(cd "$dir" && pwd)
t0=$SECONDS

"$here/vm.sh" deps
ti=$SECONDS
img=$("$here/image.sh")
echo "vm suite: image $img ($((SECONDS - ti))s)" >&2

tb=$SECONDS
rm -rf "$dir/bin" "$dir/src" "$dir/out"
mkdir -p "$dir/bin/tests" "$dir/src"
(cd "$repo" && CGO_ENABLED=1 go build -buildvcs=false -o "$dir/bin/kothd" ./cmd/kothd)
for pkg in $(grep -oE 'gotest ("\$who"|root|unprivileged) [^ ]+' "$here/guest/tests.sh" | awk '{print $3}' | sort -u); do
  (cd "$repo" && CGO_ENABLED=1 go test -c -o "$dir/bin/tests/$(echo "$pkg" | tr / _).test" "./$pkg")
done
# The repository's files (tests read testdata, config.yaml; the quick start the unit):
# tracked and new files, as they are in the worktree.
(cd "$repo" && git ls-files -co --exclude-standard -z | tar --null -T - -cf -) | tar -C "$dir/src" -xf -
for f in suite.sh:run.sh tests.sh:tests.sh quickstart.sh:quickstart.sh vm-override.conf:vm-override.conf keep-forty.py:keep-forty.py; do
  cp "$here/guest/${f%%:*}" "$dir/${f#*:}"
done
chmod +x "$dir/run.sh"
rm -f "$dir/only"; [ -z "$only" ] || echo "$only" >"$dir/only"
# Python 2 for the answers in it (Bank Heist's, Mafia's), where config.yaml expects it, if
# this machine has it: shared read-only.
: >"$dir/extra-shares"
py2=/root/.pyenv/versions/2.7.18
if [ -r "$py2/bin/python2.7" ]; then echo "py2 $py2 $py2" >>"$dir/extra-shares"; fi
echo "vm suite: built kothd and $(ls "$dir/bin/tests" | wc -l) test binaries ($((SECONDS - tb))s)" >&2

tv=$SECONDS
set +e
"$here/vm.sh" boot "$dir" "${KOTHD_VM_TIMEOUT:-5400}"
rc=$?
set -e
echo "vm suite: VM ran $((SECONDS - tv))s; steps:" >&2
grep -E '^(--- (PASS|FAIL) |vm-runner: boot|suite: [0-9]+ step)' "$dir/out/output.log" >&2 || true
if [ "$rc" -ne 0 ]; then
  echo "vm suite: FAILED (status $rc)" >&2
  grep -B2 -A40 -E '^--- FAIL ' "$dir/out/output.log" | head -200 >&2 || true
  if [ -z "$keep" ]; then cp -r "$dir/out" "${TMPDIR:-/tmp}/kothd-vm-failed.$$" && echo "vm suite: output kept in ${TMPDIR:-/tmp}/kothd-vm-failed.$$" >&2; fi
fi
echo "vm suite: total $((SECONDS - t0))s" >&2
exit "$rc"
