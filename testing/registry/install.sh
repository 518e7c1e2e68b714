#!/usr/bin/env bash
# Debian's docker-registry package (the CNCF distribution registry, 2.8): the image registry the
# test kubelet pulls from, so a run pod's image pull is a real one. Installs it when missing;
# prints "present" or "installed". Starts nothing: each test starts its own registry on
# 127.0.0.1 with a storage directory of its own (testing/support's LocalRegistry) and stops it by
# its PID.
set -euo pipefail
if command -v docker-registry >/dev/null 2>&1; then
  echo present
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "docker-registry is missing and this is not root: install it (apt-get install docker-registry)" >&2
  exit 1
fi
echo "installing Debian's docker-registry" >&2
# policy-rc.d 101: the package's own service is not started; only the binary is wanted.
policy=/usr/sbin/policy-rc.d
made_policy=
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && made_policy=1
fi
trap 'if [ -n "$made_policy" ]; then rm -f "$policy"; fi' EXIT
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends docker-registry >&2 \
  || { apt-get update -q >&2 \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends docker-registry >&2; }
echo installed
