#!/usr/bin/env bash
# Starts the distributed shape on one machine, every server on 127.0.0.1:
#   a KRaft Kafka broker (testing/kafka-broker), PostgreSQL (zonky, testing/infra),
#   the reference PDS (testing/pds), and the reconciler.
# Ctrl-C stops them all, by the PIDs this script started.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="${KNOTLESS_LOCAL_DIR:-$ROOT/.work/local-distributed}"
KAFKA_PORT="${KAFKA_PORT:-19092}"
KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-19093}"
HTTP_PORT="${RECONCILER_PORT:-18080}"
mkdir -p "$WORK"
cd "$ROOT"

echo "building (first run downloads Kafka, zonky and Quarkus from Maven Central)..."
./mvnw -B -q -pl testing/kafka-broker,testing/infra,services/reconciler -am install \
  -Dmaven.test.skip=true -Dspotless.check.skip=true
./mvnw -B -q -pl testing/infra dependency:build-classpath \
  -Dmdep.outputFile="$WORK/infra-classpath.txt" -Dmdep.includeScope=runtime

PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT INT TERM

wait_for() { # file pattern seconds
  for _ in $(seq 1 "$3"); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 1; done
  echo "gave up waiting for '$2' in $1" >&2; tail -20 "$1" >&2; exit 1
}

java -Dknotless.kafka.watch-stdin=false -Xmx512m -XX:+UseSerialGC \
  -cp "testing/kafka-broker/target/classes:$(cat testing/kafka-broker/target/broker-classpath.txt)" \
  dev.knotless.testing.kafkabroker.KafkaBrokerMain "$KAFKA_PORT" "$KAFKA_CONTROLLER_PORT" "$WORK/kafka" \
  >"$WORK/kafka.log" 2>&1 &
PIDS+=($!)
wait_for "$WORK/kafka.log" KAFKA_READY 120
echo "kafka: 127.0.0.1:$KAFKA_PORT"

java -Djava.io.tmpdir="$WORK" -cp "testing/infra/target/classes:$(cat "$WORK/infra-classpath.txt")" \
  dev.knotless.testing.infra.EmbeddedPgMain >"$WORK/postgres.log" 2>&1 &
PIDS+=($!)
wait_for "$WORK/postgres.log" PG_READY 120
JDBC_URL="$(grep PG_READY "$WORK/postgres.log" | awk '{print $2}')"
echo "postgres: $JDBC_URL"

testing/pds/start-pds.sh >"$WORK/pds.log" 2>"$WORK/pds.err" &
PIDS+=($!)
wait_for "$WORK/pds.log" pdsUrl 300
PDS_URL="$(grep -o '"pdsUrl":"[^"]*"' "$WORK/pds.log" | head -1 | cut -d'"' -f4)"
echo "pds: $PDS_URL"

java -Dquarkus.http.host=127.0.0.1 -Dquarkus.http.port="$HTTP_PORT" \
  -Dkafka.bootstrap.servers="127.0.0.1:$KAFKA_PORT" \
  -Dquarkus.datasource.jdbc.url="$JDBC_URL" \
  -Dquarkus.datasource.reactive.url="${JDBC_URL#jdbc:}" \
  -Dquarkus.datasource.username=postgres -Dquarkus.datasource.password=postgres \
  -Dknotless.reconciler.pds="$PDS_URL" \
  -jar services/reconciler/target/quarkus-app/quarkus-run.jar >"$WORK/reconciler.log" 2>&1 &
PIDS+=($!)
wait_for "$WORK/reconciler.log" "Listening on" 180
echo "reconciler: http://127.0.0.1:$HTTP_PORT/q/health/ready and /q/metrics"
echo "logs in $WORK; Ctrl-C stops everything"
wait
