#!/usr/bin/env bash
# Debian's prometheus package: the prometheus server and promtool, which ObservabilityIT
# (testing/distributed) and the chart's rule tests (testing/chart) run. Installs it when either
# is missing; prints "present" or "installed". Starts nothing: the tests start their own
# Prometheus on 127.0.0.1 and stop it by its PID.
set -euo pipefail
if command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1; then
  echo present
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "prometheus is missing and this is not root: install it (apt-get install prometheus)" >&2
  exit 1
fi
echo "installing Debian's prometheus" >&2
# policy-rc.d 101: the package's own service is not started; only the binaries are wanted.
policy=/usr/sbin/policy-rc.d
made_policy=
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && made_policy=1
fi
trap 'if [ -n "$made_policy" ]; then rm -f "$policy"; fi' EXIT
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends prometheus >&2 \
  || { apt-get update -q >&2 \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends prometheus >&2; }
echo installed
