#!/usr/bin/env bash
# The test suite, with its set-up: installs bubblewrap, numpy and chromium if missing, then runs every
# Go test (real SQLite, real bot processes, real bwrap).
#
# ./test.sh --vm runs the VM suite instead (scripts/vm/suite.sh): kothd on Debian 12 with
# systemd and cgroup v2, booted under qemu, as hosts run it (root the first time: it
# installs qemu and builds the image; 20-30 minutes under emulation, docs/vm-suite.md).
set -euo pipefail
cd "$(dirname "$0")"
if [ "${1:-}" = "--vm" ]; then
  shift
  exec scripts/vm/suite.sh "$@"
fi
bash scripts/setup.sh --tests
go vet ./...
# Real-process packages (sandbox, build, the protocols, the engines) take minutes on two cores: more than go test's
# default ten minutes per package when the machine is busy.
go test -count=1 -timeout 40m "$@" ./...
