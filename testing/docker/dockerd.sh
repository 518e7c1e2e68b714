#!/usr/bin/env bash
# The docker daemon the tests and the demo use.
#
#   dockerd.sh start   install Debian's docker.io if missing, and start dockerd
#                      if no daemon answers; prints "started" or "running"
#   dockerd.sh stop    stop the daemon this script started (by its pid file),
#                      and nothing else
#
# A daemon this script starts registers two extra runtime names that point at
# runc, so tests can see which runtime reached each container: gVisor's runsc
# cannot be installed here (docs/executor.md says how an operator does).
#
#   KNOTLESS_DOCKERD_DIR   where the pid file and log go (default /tmp/knotless-dockerd)
set -euo pipefail
dir="${KNOTLESS_DOCKERD_DIR:-/tmp/knotless-dockerd}"
pidfile="$dir/dockerd.pid"
runtimes=(--add-runtime knotless-sandbox=runc --add-runtime knotless-trusted=runc)

answers() { docker version --format '{{.Server.Version}}' >/dev/null 2>&1; }

case "${1:-}" in
  start)
    if ! command -v dockerd >/dev/null 2>&1; then
      echo "installing Debian's docker.io" >&2
      if [ "$(id -u)" != 0 ]; then
        echo "docker.io is missing and this is not root: install it (apt-get install docker.io)" >&2
        exit 1
      fi
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q docker.io >&2 \
        || { apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q docker.io >&2; }
    fi
    if answers; then
      echo running
      exit 0
    fi
    mkdir -p "$dir"
    # Started in a session of its own, so it outlives the shell that started it.
    setsid dockerd "${runtimes[@]}" --pidfile "$pidfile" >"$dir/dockerd.log" 2>&1 < /dev/null &
    for _ in $(seq 1 150); do
      if answers; then
        echo started
        exit 0
      fi
      sleep 0.2
    done
    echo "dockerd did not answer within 30 s; its log:" >&2
    tail -20 "$dir/dockerd.log" >&2
    exit 1
    ;;
  stop)
    if [ -f "$pidfile" ]; then
      pid="$(cat "$pidfile")"
      if kill "$pid" 2>/dev/null; then
        for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
      fi
      rm -f "$pidfile"
    fi
    ;;
  *)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac
