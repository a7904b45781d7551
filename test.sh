#!/usr/bin/env bash
# The test suite, with its set-up: installs bubblewrap, numpy and chromium if missing, then runs every
# Go test (real SQLite, real bot processes, real bwrap).
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/setup.sh
go vet ./...
go test -count=1 "$@" ./...
