#!/usr/bin/env bash
# BenchFlow 0.7.12 (the peer bench_scale.py times: `bench eval metrics`) in a Python 3.12 venv of
# the benchmark's own; no Docker is needed for metrics. Idempotent. Prints the path of `bench` on
# its last line.
#
#   bash benchmarks/install_peer.sh /tmp/benchreport-scale/peer
set -euo pipefail
DEST=${1:-/tmp/benchreport-peer}
BENCHFLOW=${BENCHFLOW:-benchflow==0.7.12.dev2426}
if [ -z "${PY312:-}" ]; then   # a pyenv shim may exist and still refuse to run: try each
  for candidate in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12*/bin/python3.12 $(command -v python3.12 || true); do
    if "$candidate" -c 'import sys; assert sys.version_info[:2] == (3, 12)' 2>/dev/null; then
      PY312=$candidate; break
    fi
  done
fi
[ -n "${PY312:-}" ] || { echo "no working Python 3.12 found (BenchFlow 0.7.12 needs it)" >&2; exit 1; }
if [ ! -x "$DEST/venv/bin/bench" ]; then
  mkdir -p "$DEST"
  "$PY312" -m venv "$DEST/venv"
  "$DEST/venv/bin/pip" install -q --disable-pip-version-check "$BENCHFLOW" >"$DEST/pip.log" 2>&1
fi
echo "$DEST/venv/bin/bench"
