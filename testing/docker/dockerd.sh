#!/usr/bin/env bash
# The docker daemon the tests and the demo use.
#
#   dockerd.sh start   install Debian's docker.io and runsc if missing, and
#                      start dockerd if no daemon answers; prints "started"
#                      or "running"
#   dockerd.sh stop    stop the daemon this script started (by its pid file),
#                      and nothing else
#
# A daemon this script starts registers two extra runtime names, so tests can
# see which runtime reached each container:
#
#   knotless-sandbox   gVisor's runsc (Debian's package), for others' code
#   knotless-trusted   runc, for code an owner vouches for
#
# runsc runs with --network=host. Its default, a network stack of its own
# inside the sandbox, refuses to start here ("cannot run with network enabled
# in root network namespace"). --network=none would start, but would cut
# every run off whatever network docker gave it, so --network on the runner
# would mean nothing. --network=host is not the machine's network: runsc
# passes the sandbox's sockets through to the network namespace docker made
# for the container, so a run joins the bridge or the network named with
# --network as under runc, and docker's rules for that network still hold.
# The sandbox still takes every other system call. docs/executor.md says more.
#
# The daemon trusts registries on 127.0.0.0/8 over plain HTTP, as dockerd does
# unless told otherwise: the tests' own registry (testing/registry) listens
# there, and the test kubelet pulls run pods' images from it.
#
# A daemon that already answers is left as it is; the tests check that it has
# both names and that knotless-sandbox really is gVisor, and say what to do
# when it is not (testing/support's LocalDocker).
#
#   KNOTLESS_DOCKERD_DIR   where the pid file, log and daemon.json go
#                          (default /tmp/knotless-dockerd)
set -euo pipefail
dir="${KNOTLESS_DOCKERD_DIR:-/tmp/knotless-dockerd}"
pidfile="$dir/dockerd.pid"
config="$dir/daemon.json"
runsc_args='["--network=host"]'

answers() { docker version --format '{{.Server.Version}}' >/dev/null 2>&1; }

install() {
  local package="$1"
  echo "installing Debian's $package" >&2
  if [ "$(id -u)" != 0 ]; then
    echo "$package is missing and this is not root: install it (apt-get install $package)" >&2
    exit 1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$package" >&2 \
    || { apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$package" >&2; }
}

case "${1:-}" in
  start)
    command -v dockerd >/dev/null 2>&1 || install docker.io
    command -v runsc >/dev/null 2>&1 || install runsc
    if answers; then
      echo running
      exit 0
    fi
    mkdir -p "$dir"
    cat >"$config" <<JSON
{
  "runtimes": {
    "knotless-sandbox": {"path": "$(command -v runsc)", "runtimeArgs": $runsc_args},
    "knotless-trusted": {"path": "runc"}
  }
}
JSON
    # Started in a session of its own, so it outlives the shell that started it.
    setsid dockerd --config-file "$config" --pidfile "$pidfile" >"$dir/dockerd.log" 2>&1 < /dev/null &
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
