#!/usr/bin/env bash
# Installs what kothd needs beyond Go, once: bubblewrap (the sandbox), Debian's numpy for
# Debian's /usr/bin/python3 (bots import numpy; pyenv interpreters lack it) and its headers
# with gcc (the pyclass harness's C loop); with --tests
# also chromium (the tests lay out the board in a real browser) and systemd (its unit verifier). Idempotent and quiet when
# everything is present.
set -euo pipefail
need=()
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1 || need+=(python3-numpy)
command -v gcc >/dev/null 2>&1 || need+=(gcc)
# Debian's python3 headers: kothd compiles the pyclass harness's C batch loop against them
# (runner/protocol/pyclass/pyfast.go; without them the harness serves in Python, slower).
[ -f "$(/usr/bin/python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)/Python.h" ] || need+=(python3-dev)
# Headless Chromium lays out the rendered board in publisher's TestBoardFitsInBrowser.
if [ "${1:-}" = "--tests" ]; then
  command -v chromium >/dev/null 2>&1 || need+=(chromium)
  # systemd-analyze verifies the shipped unit (cmd/kothd's TestUnitVerifies, which skips without it).
  command -v systemd-analyze >/dev/null 2>&1 || need+=(systemd)
fi
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}" >&2
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >&2
fi
