#!/usr/bin/env bash
# The main job: install xltcp, then run the demo scenario, which prints a
# results table and writes results/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
xltcp demo --out results/demo --force
