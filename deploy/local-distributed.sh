#!/bin/sh
# The distributed shape on this machine, every server on 127.0.0.1: a Kafka broker in its own
# JVM, embedded PostgreSQL, the reference PDS, and the ingester, a reconciler and the check-writer
# as processes. It pushes a sample repository, prints the check the services file, and keeps
# running until Ctrl-C (pass --exit to stop once the check is shown). It ends what it started.
#
# Needs JDK 17, git and npm (npm fetches Node 22 and the PDS on the first run).
set -e
root="$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)"
cd "$root"
if [ ! -f services/reconciler/target/quarkus-app/quarkus-run.jar ] ||
   [ ! -f services/ingester/target/quarkus-app/quarkus-run.jar ] ||
   [ ! -f services/check-writer/target/quarkus-app/quarkus-run.jar ] ||
   [ ! -f testing/distributed/target/classpath.txt ]; then
  echo "==> building (the first time downloads Maven and the dependencies: a few minutes)"
  ./mvnw -B -q -DskipTests install -pl testing/distributed -am
fi
testing/pds/install.sh >/dev/null
exec java -XX:+UseSerialGC -Dknotless.repo.root="$root" -Dknotless.allow-local-services=true \
  -cp "testing/distributed/target/classes:$(cat testing/distributed/target/classpath.txt)" \
  dev.knotless.testing.distributed.LocalDistributedMain "$@"
