#!/usr/bin/env bash
# Compile the ns-3 reference scenarios against the ns-3 release installed from PyPI
# (`pip install ns3==3.44.post0`). The wheel ships headers and shared libraries;
# this script finds them through Python package metadata (without importing the
# package, which would load the cppyy bindings) and builds each scenario in
# bench/ns3/build/.
#
# Usage: bench/ns3/build.sh [scenario.cc ...]   (default: every .cc in bench/ns3/)
# Environment: PYTHON (default python3), CXX (default g++), CXXFLAGS_EXTRA.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python="${PYTHON:-python3}"
cxx="${CXX:-g++}"

ns3_root="$("$python" - <<'PY'
import importlib.metadata as md
import sys

try:
    dist = md.distribution("ns3")
except md.PackageNotFoundError:
    sys.exit("ns3 is not installed: run `pip install ns3==3.44.post0`")
print(dist.locate_file("ns3"))
PY
)"
ns3_version="$("$python" -c 'import importlib.metadata as m; print(m.version("ns3"))')"

inc="$ns3_root/include"
lib="$ns3_root/lib64"
[ -d "$lib" ] || lib="$ns3_root/lib"
if [ ! -f "$inc/ns3/core-module.h" ]; then
    echo "ns-3 headers not found under $inc" >&2
    exit 1
fi

# The library version prefix of the shared objects, e.g. "3.44" in libns3.44-core.so.
core_so="$(ls "$lib"/libns3.*-core.so | head -n 1)"
libver="$(basename "$core_so" | sed -E 's/^libns3\.([0-9.]+)-core\.so$/\1/')"

modules=(core network internet point-to-point applications traffic-control stats bridge
         wifi mobility propagation spectrum antenna energy)
libs=()
for m in "${modules[@]}"; do
    libs+=("-lns3.${libver}-${m}")
done

# Same definitions as the wheel's own build (release profile with logging and
# asserts compiled in), so inline header code matches the libraries.
defs=(-DNS3_BUILD_PROFILE_RELEASE -DNS3_LOG_ENABLE -DNS3_ASSERT_ENABLE)

mkdir -p "$here/build"
if [ "$#" -gt 0 ]; then
    sources=("$@")
else
    sources=("$here"/*.cc)
fi

echo "ns3 ${ns3_version} from ${ns3_root}"
for src in "${sources[@]}"; do
    name="$(basename "$src" .cc)"
    echo "compiling ${name}"
    # shellcheck disable=SC2086
    "$cxx" -std=c++20 -O2 -Wall -Wextra "${defs[@]}" -isystem "$inc" -I"$here" \
        ${CXXFLAGS_EXTRA:-} "$src" -o "$here/build/$name" \
        -L"$lib" -Wl,-rpath,"$lib" "${libs[@]}" -lpthread
done
