#!/usr/bin/env bash
# The base image every service image is built on (services/pom.xml, profile
# `images`): Debian's OpenJDK 17 headless JRE, git (runs clone their checkout
# with it), busybox-static for a shell and the tools the executors call
# (setsid, nice, tar), and the trust store from Debian's ca-certificates. There
# is no registry here, so the root filesystem is unpacked from Debian packages
# (apt-get download + dpkg-deb -x, as testing/docker/images.sh does for the
# test images) and `docker import`ed.
#
# The tag is a hash of this directory's files, so an image already in the
# daemon is reused (a few milliseconds) and a change here makes a new one.
# Prints the image's name, or nothing when no docker daemon answers: the build
# then makes no images.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
docker version --format '{{.Server.Version}}' >/dev/null 2>&1 || exit 0

hash="$(cat "$here/build.sh" "$here/Cacerts.java" | sha256sum | cut -c1-12)"
name="knotless-run/base-jre17:$hash"
if docker image inspect "$name" >/dev/null 2>&1; then
  echo "$name"
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
root="$work/root"
mkdir -p "$work/debs" "$root"
chmod 755 "$work" "$work/debs"  # apt-get download drops privileges to _apt

# The JRE's own dependencies on AWT, fonts, sound, smart cards and NSS are left
# out: a headless server loads none of them.
packages=(openjdk-17-jre-headless libc6 libgcc-s1 libstdc++6 zlib1g
  git libpcre2-8-0 ca-certificates busybox-static)
(cd "$work/debs" && apt-get download "${packages[@]}" >&2 \
  || { apt-get update -q >&2 && apt-get download "${packages[@]}" >&2; })
for deb in "$work"/debs/*.deb; do dpkg-deb -x "$deb" "$root"; done

# What the packages' maintainer scripts would have made.
jre=/usr/lib/jvm/java-17-openjdk-amd64
mkdir -p "$root/usr/bin" "$root/bin" "$root/tmp" "$root/etc" "$root/home/quarkus" "$root/etc/ssl/certs/java"
chmod 1777 "$root/tmp"
ln -sf "$jre/bin/java" "$root/usr/bin/java"
for applet in $("$root/bin/busybox" --list); do
  [ -e "$root/bin/$applet" ] || [ -e "$root/usr/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done
java "$here/Cacerts.java" "$root/usr/share/ca-certificates" "$root/etc/ssl/certs/java/cacerts" >&2
cat >"$root/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/bin/sh
quarkus:x:185:185:knotless-run:/home/quarkus:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
PASSWD
printf 'root:x:0:\nquarkus:x:185:\nnogroup:x:65534:\n' >"$root/etc/group"
chown 185:185 "$root/home/quarkus"
# Documentation and man pages are most of git's and the JRE's size.
rm -rf "$root/usr/share/doc" "$root/usr/share/man" "$root/usr/share/locale" "$root/usr/share/lintian"

tar -C "$root" -c . | docker import \
  -c "ENV PATH=$jre/bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin" \
  -c "ENV JAVA_HOME=$jre" \
  -c 'ENV LANG=C.UTF-8' \
  -c 'USER 185' \
  -m "knotless-run base: Debian's openjdk-17-jre-headless, git, busybox" - "$name" >/dev/null
echo "$name"
