#!/usr/bin/env bash
# Every test: Rust (core, with property tests and pcap checks through
# tshark) and Python (the xltcp command end to end), plus fmt and clippy.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --test
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --quiet -- -D warnings
cargo test --workspace --quiet
python3 -m pytest -q tests/python
