#!/usr/bin/env bash
# The test suite, with its set-up: installs bubblewrap, numpy and chromium if missing, then runs every
# Go test (real SQLite, real bot processes, real bwrap).
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/setup.sh --tests
go vet ./...
# Real-process packages (sandbox, build, the protocols, the engines) take minutes on two cores: more than go test's
# default ten minutes per package when the machine is busy.
go test -count=1 -timeout 40m "$@" ./...
