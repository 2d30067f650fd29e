#!/usr/bin/env bash
# Installs what xltcp needs on a fresh Debian machine with Rust and Python:
# the Python package (building the Rust core with maturin), iperf3 for the
# emulator (`xltcp emu`) and, for the tests, tshark, chromium and the test
# extra (pytest, pyarrow, dask.distributed, ruff, MkDocs).  Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

want_test=0
[ "${1:-}" = "--test" ] && want_test=1

if [ "$want_test" = 1 ] && ! command -v tshark >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing tshark (Debian package) ..."
    export DEBIAN_FRONTEND=noninteractive
    echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
    apt-get update -qq >/dev/null
    apt-get install -y -qq tshark >/dev/null
  else
    echo "note: tshark not found and cannot be installed here; pcap checks will be skipped" >&2
  fi
fi

# A test opens `xltcp report` pages in headless Chromium.
if [ "$want_test" = 1 ] && ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing chromium (Debian package) ..."
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends chromium >/dev/null
  else
    echo "note: chromium not found and cannot be installed here; the browser check of reports will be skipped" >&2
  fi
fi

# The emulator runs the scenario's flows as iperf3 clients and servers.
if ! command -v iperf3 >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing iperf3 (Debian package) ..."
    export DEBIAN_FRONTEND=noninteractive
    echo "iperf3 iperf3/start_daemon boolean false" | debconf-set-selections
    apt-get update -qq >/dev/null
    apt-get install -y -qq iperf3 >/dev/null
  else
    echo "note: iperf3 not found and cannot be installed here; xltcp emu and its tests will not run" >&2
  fi
fi

extra=""
[ "$want_test" = 1 ] && extra="[test]"
python3 -m pip install --quiet --disable-pip-version-check -e ".${extra}"
