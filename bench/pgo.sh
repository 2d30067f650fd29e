#!/usr/bin/env bash
# Builds the simulator's runner (the `run` example) with profile-guided
# optimisation and prints its path on the last line:
#   1. a build instrumented to count its branches and calls
#      (-Cprofile-generate);
#   2. training runs of it on a fixed mix of scenarios (below);
#   3. their counts merged with the toolchain's llvm-profdata (the rustup
#      component llvm-tools, added if missing);
#   4. the release build again, laid out and inlined by those counts
#      (-Cprofile-use).
# Outputs are the same as the default build's (optimisation, not the
# model); only speed differs. The training runs use other seeds and
# presets than the cases bench/icount.py and bench/speed.py measure, so
# their figures are not measured on the runs the profile was made from.
# About 3 to 4 minutes; everything goes under $CARGO_TARGET_DIR/pgo
# (default target/pgo).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out="${CARGO_TARGET_DIR:-$root/target}/pgo"
case "$out" in /*) ;; *) out="$root/$out" ;; esac

sysroot=$(rustc --print sysroot)
profdata=$(find "$sysroot" -name llvm-profdata -type f 2>/dev/null | head -n 1)
if [ -z "$profdata" ]; then
  rustup component add llvm-tools >&2
  profdata=$(find "$sysroot" -name llvm-profdata -type f | head -n 1)
fi

rm -rf "$out/data"
mkdir -p "$out/data"
echo "pgo: instrumented build ..." >&2
RUSTFLAGS="-Cprofile-generate=$out/data" CARGO_TARGET_DIR="$out/gen" \
  cargo build --quiet --release -p xltcp-core --example run
gen="$out/gen/release/examples/run"
echo "pgo: training runs ..." >&2
train() { "$gen" "$@" >/dev/null; }
train scenarios/many-flows.toml --seed 7 --set sim.duration=10s
train scenarios/many-flows.toml --seed 8 --set flow.0.count=2000 --set wireless.rate=10Gbps \
  --set wireless.queue=2000p --set sim.duration=1s
train scenarios/lossy-last-hop.toml --seed 3
train scenarios/pu-blockage.toml --seed 2
train scenarios/wifi-11a.toml --seed 4 --set sim.duration=5s
train scenarios/kim-chung/snoop-up.toml --seed 2
train scenarios/byun2016/paper/newreno-cr.toml --seed 2
train scenarios/demo.toml --seed 3
"$profdata" merge -o "$out/merged.profdata" "$out/data"
# Named by its contents: Cargo rebuilds when RUSTFLAGS change, not when a
# file they name does.
merged="$out/merged-$(sha256sum "$out/merged.profdata" | cut -c1-16).profdata"
mv "$out/merged.profdata" "$merged"
echo "pgo: optimised build ..." >&2
RUSTFLAGS="-Cprofile-use=$merged" CARGO_TARGET_DIR="$out/use" \
  cargo build --quiet --release -p xltcp-core --example run
echo "$out/use/release/examples/run"
