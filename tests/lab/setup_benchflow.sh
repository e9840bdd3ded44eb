#!/usr/bin/env bash
# Make a machine able to run BenchFlow 0.7.12 on Docker with no container registry: Docker
# Compose v2 (Debian trixie's plugin; bookworm only has v1), a base image local/debian:bookworm
# (debootstrap + docker import) and BenchFlow in a Python 3.12 venv. Idempotent. Needs a running
# Docker daemon. Prints the path of `bench` on its last line.
#
#   LAB=/opt/benchreport-lab bash tests/lab/setup_benchflow.sh
set -euo pipefail
LAB=${LAB:-/opt/benchreport-lab}
BENCHFLOW=${BENCHFLOW:-benchflow==0.7.12.dev2426}
if [ -z "${PY312:-}" ]; then   # a pyenv shim may exist and still refuse to run: try each
  for candidate in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12*/bin/python3.12 $(command -v python3.12 || true); do
    if "$candidate" -c 'import sys; assert sys.version_info[:2] == (3, 12)' 2>/dev/null; then
      PY312=$candidate; break
    fi
  done
fi
[ -n "${PY312:-}" ] || { echo "no working Python 3.12 found (BenchFlow 0.7.12 needs it)" >&2; exit 1; }
mkdir -p "$LAB"
export DEBIAN_FRONTEND=noninteractive

if ! docker compose version >/dev/null 2>&1 || ! command -v debootstrap >/dev/null; then
  created_policy=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && created_policy=1
  fi
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
  if ! docker compose version >/dev/null 2>&1; then
    mirror=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
    [ -n "$mirror" ] || mirror=$(awk '$1=="deb"{print $2; exit}' /etc/apt/sources.list)
    printf 'Types: deb\nURIs: %s\nSuites: trixie\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      "$mirror" > /etc/apt/sources.list.d/zz-trixie.sources
    printf 'Package: *\nPin: release n=trixie\nPin-Priority: 50\n' > /etc/apt/preferences.d/zz-trixie
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends docker-compose/trixie docker-buildx/trixie >/dev/null
  fi
  [ "$created_policy" = 1 ] && rm -f /usr/sbin/policy-rc.d
fi

if ! docker image inspect local/debian:bookworm >/dev/null 2>&1; then
  mirror=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  [ -n "$mirror" ] || mirror=$(awk '$1=="deb"{print $2; exit}' /etc/apt/sources.list)
  rm -rf "$LAB/rootfs"
  debootstrap --variant=minbase bookworm "$LAB/rootfs" "$mirror" >"$LAB/debootstrap.log" 2>&1
  tar -C "$LAB/rootfs" -c . | docker import \
    --change 'CMD ["/bin/bash"]' \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    - local/debian:bookworm >/dev/null
  rm -rf "$LAB/rootfs"
fi

if [ ! -x "$LAB/venv/bin/bench" ]; then
  "$PY312" -m venv "$LAB/venv"
  "$LAB/venv/bin/pip" install -q --disable-pip-version-check "$BENCHFLOW" 2>"$LAB/pip.log"
fi
echo "$LAB/venv/bin/bench"
