#!/usr/bin/env bash
# Makes the local images tests and the demo run in; there is no public registry to
# pull from. Each is a root filesystem put together from Debian packages and
# imported with `docker import`. An image already in the daemon is kept, so
# only a new daemon pays for them (a few seconds).
#
#   knotless-test/busybox:1   busybox-static's applets, nothing else (~2 MB)
#   knotless-test/git:1       the same plus git, unpacked from Debian's .debs
#
# Prints the names of the images, one per line.
set -euo pipefail
have() { docker image inspect "$1" >/dev/null 2>&1; }

busybox_root() {
  local root="$1" usrbin="${2:-link}" bb
  bb=/bin/busybox
  # Only a static busybox works in an image with no libc of its own.
  if [ ! -x "$bb" ] || ! ldd "$bb" 2>&1 | grep -q 'not a dynamic'; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q busybox-static >&2 \
      || { apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q busybox-static >&2; }
  fi
  mkdir -p "$root/bin" "$root/tmp" "$root/etc" "$root/work" "$root/root" "$root/usr/local/bin"
  chmod 1777 "$root/tmp"
  cp "$bb" "$root/bin/busybox"
  for applet in $("$bb" --list); do
    [ "$applet" = busybox ] || ln -sf busybox "$root/bin/$applet"
  done
  ln -sfn bin "$root/sbin"
  if [ "$usrbin" = link ]; then
    ln -sfn ../bin "$root/usr/bin"
    ln -sfn ../bin "$root/usr/sbin"
  fi
  echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
  echo 'nobody:x:65534:65534:nobody:/nonexistent:/bin/false' >>"$root/etc/passwd"
  echo 'root:x:0:' >"$root/etc/group"
}

import() {
  local root="$1" name="$2"
  tar -C "$root" -c . | docker import \
    -c 'ENV PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin' \
    -c 'ENV HOME=/root' - "$name" >/dev/null
}

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if ! have knotless-test/busybox:1; then
  busybox_root "$work/busybox"
  import "$work/busybox" knotless-test/busybox:1
fi
echo knotless-test/busybox:1

if ! have knotless-test/git:1; then
  # /usr/bin stays a directory of its own here: git's package puts git there.
  busybox_root "$work/git" dir
  mkdir -p "$work/debs"
  (cd "$work/debs" && apt-get download git libc6 zlib1g libpcre2-8-0 >&2 \
    || { apt-get update -q >&2 && apt-get download git libc6 zlib1g libpcre2-8-0 >&2; })
  for deb in "$work"/debs/*.deb; do dpkg-deb -x "$deb" "$work/git"; done
  import "$work/git" knotless-test/git:1
fi
echo knotless-test/git:1
