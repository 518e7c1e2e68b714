#!/bin/sh
# The distributed shape on this machine, every server on 127.0.0.1: a Kafka broker in its own
# JVM, embedded PostgreSQL, the reference PDS, the Fabric8 mock Kubernetes API server with the
# test kubelet, and the ingester, a reconciler, the scheduler and the check-writer as processes.
# The scheduler runs each job as a pod; the kubelet runs the pod as a container of whatever docker
# daemon answers (it starts one if none does), under its runsc runtime when it has one. It pushes
# a sample repository, prints the check the services file and the pod that ran it, and keeps
# running until Ctrl-C (pass --exit to stop once the check is shown, exit 0 on success). It ends
# what it started. Its logs and caches go to .work/local-distributed (KNOTLESS_TOUR_DIR to
# choose another), emptied when it starts.
#
# Needs JDK 17 and git; Maven, Node 22 and the PDS are fetched on the first run.
set -e
root="$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)"
cd "$root"
if [ ! -f services/reconciler/target/quarkus-app/quarkus-run.jar ] ||
   [ ! -f services/ingester/target/quarkus-app/quarkus-run.jar ] ||
   [ ! -f services/check-writer/target/quarkus-app/quarkus-run.jar ] ||
   [ ! -f services/scheduler/target/quarkus-app/quarkus-run.jar ] ||
   [ ! -f testing/distributed/target/classpath.txt ]; then
  echo "==> building (the first time downloads Maven and the dependencies: a few minutes)"
  ./mvnw -B -q -DskipTests install -pl testing/distributed -am
fi
testing/pds/install.sh >/dev/null
exec java -XX:+UseSerialGC -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -Dknotless.repo.root="$root" -Dknotless.allow-local-services=true \
  -cp "testing/distributed/target/classes:$(cat testing/distributed/target/classpath.txt)" \
  dev.knotless.testing.distributed.LocalDistributedMain "$@"
