#!/usr/bin/env bash
# The headless browser the OAuth tests sign in with: Debian's chromium and
# chromium-driver, installed with apt-get when missing (root only, as the
# docker daemon's packages are). Prints the driver's path.
#
# The tests drive it through Selenium with --headless=new and, as root,
# --no-sandbox: Chromium's own sandbox refuses to start under uid 0.
set -euo pipefail

install() {
  echo "installing Debian's $*" >&2
  if [ "$(id -u)" != 0 ]; then
    echo "$* missing and this is not root: install them (apt-get install $*)" >&2
    exit 1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >&2 \
    || { apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >&2; }
}

if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
  install chromium chromium-driver
fi
command -v chromedriver
