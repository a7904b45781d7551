#!/usr/bin/env bash
# Runs kothd after making sure the machine has what it needs, e.g.
#   ./run.sh once --snapshot testdata/snapshot
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/setup.sh
exec go run ./cmd/kothd "$@"
