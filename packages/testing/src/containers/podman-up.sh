#!/usr/bin/env bash
# Makes podman's Docker-compatible API available for the test containers on a Debian machine with
# no Docker engine (../shared/design/containers-local.md): installs podman, runc and debootstrap
# when missing, installs the project's containers.conf machine-wide and starts ONE API service for
# the machine (every checkout shares it, like a Docker daemon). Idempotent, and safe when two
# checkouts run it at once: everything happens under one lock.
#
# On success prints `DOCKER_HOST=...` and `CONTAINERS_CONF=...` lines. When this machine cannot
# (not root, no apt-get, the service does not answer) prints `REASON=...` and exits 3; any other
# exit status is a failure worth reading.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/../../../.." && pwd)
CONF=/etc/tawsil/containers.conf
SOCKET=/run/podman/podman.sock
LOCK=/run/lock/tawsil-podman.lock
SERVICE_LOG=/var/log/tawsil-podman-service.log

cannot() { echo "REASON=$*"; exit 3; }
ping_api() { curl -sf --max-time 2 --unix-socket "$SOCKET" http://d/_ping >/dev/null 2>&1; }

[ "$(id -u)" = 0 ] || cannot "podman setup needs root (apt-get, /etc, /run); not root here"
command -v flock >/dev/null || cannot "no flock (util-linux) to serialise the setup"
mkdir -p /run/lock
exec 9>"$LOCK"
flock -w 600 9 || cannot "timed out waiting for another checkout's podman setup ($LOCK)"

missing=()
for tool in podman runc debootstrap; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
  command -v apt-get >/dev/null || cannot "no podman and no apt-get to install it"
  echo "installing ${missing[*]} (Debian packages)" >&2
  # Stale package lists are the usual reason an install fails on a fresh machine: refresh once.
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq podman runc debootstrap >/dev/null 2>&1 \
    || { apt-get update -qq >/dev/null && apt-get install -y -qq podman runc debootstrap >/dev/null; } \
    || cannot "apt-get could not install podman runc debootstrap"
fi

# Same content for every checkout of this version; replaced atomically so a reader never sees half.
mkdir -p "$(dirname "$CONF")"
if ! cmp -s "$REPO/infra/containers/containers.conf" "$CONF"; then
  cp "$REPO/infra/containers/containers.conf" "$CONF.tmp.$$" && mv -f "$CONF.tmp.$$" "$CONF"
fi

# cgroups v1 (these machines): podman puts every container under one cgroup, libpod_parent, and
# its default cpu.shares (1024) weighs ALL containers together like a single process against every
# other process of the machine. Under load the test containers starved: services timed out
# connecting to PostgreSQL. Weighed like 32 processes, they get about what native servers would.
CPU_CGROUP=/sys/fs/cgroup/cpu
if [ -w "$CPU_CGROUP" ] && [ ! -e /sys/fs/cgroup/cgroup.controllers ]; then
  mkdir -p "$CPU_CGROUP/libpod_parent" && echo 32768 >"$CPU_CGROUP/libpod_parent/cpu.shares" \
    || echo "could not raise the containers' CPU weight; they may starve on a busy machine" >&2
fi

# A service whose working directory has since been deleted (started from a checkout that was
# removed) answers pings but cannot start a container: every conmon it spawns inherits that
# directory and fails ("Failed to get working directory", "write child: broken pipe"). Replace it.
for pid in $(pgrep -f "podman system service .*unix://$SOCKET" || true); do
  if [[ "$(readlink "/proc/$pid/cwd" 2>/dev/null)" == *" (deleted)" ]]; then
    echo "restarting podman's API service (pid $pid): its working directory is $(readlink "/proc/$pid/cwd" 2>/dev/null)" >&2
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
done

if ! ping_api; then
  mkdir -p "$(dirname "$SOCKET")"
  rm -f "$SOCKET" # a socket left by a service that died refuses connections; the new one binds afresh
  # Detached from this shell's session: the service outlives the `make test` that started it. It
  # must not inherit the lock's descriptor (9>&-), or it would hold the lock for as long as it runs.
  # From / like any daemon: the service must not hold (or depend on) the checkout that started it.
  (cd / && CONTAINERS_CONF=$CONF exec setsid podman system service --time=0 "unix://$SOCKET" \
    </dev/null >>"$SERVICE_LOG" 2>&1 9>&-) &
  for _ in $(seq 1 100); do ping_api && break; sleep 0.2; done
  ping_api || cannot "podman system service did not answer on $SOCKET within 20 s (see $SERVICE_LOG)"
fi

echo "DOCKER_HOST=unix://$SOCKET"
echo "CONTAINERS_CONF=$CONF"
