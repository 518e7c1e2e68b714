package dev.knotless.run.ingester;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.knotless.run.testkit.KafkaBrokerResource;
import dev.knotless.run.testkit.ManagementPort;
import dev.knotless.runner.doorbell.WebSocketSource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.Map;
import org.junit.jupiter.api.Test;

@WithTestResource(
    value = KafkaBrokerResource.class,
    scope = TestResourceScope.GLOBAL,
    initArgs = @ResourceArg(name = "user", value = "ingester"))
@TestProfile(SourceDownIT.NoPds.class)
@QuarkusTest
class SourceDownIT {
  /** A firehose on a port nobody listens on. */
  public static final class NoPds implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      int port;
      try (ServerSocket free = new ServerSocket(0)) {
        port = free.getLocalPort();
      } catch (IOException e) {
        throw new IllegalStateException("no free port", e);
      }
      return Map.of(
          "knotless.ingester.source", "firehose",
          "knotless.ingester.firehose", "http://127.0.0.1:" + port,
          "knotless.ingester.repos", "did:plc:nobody/3kzzzzzzzzzz1=app",
          "knotless.ingester.first-backoff", "100ms",
          "knotless.ingester.max-backoff", "500ms");
    }
  }

  @Inject WebSocketSource source;

  @Test
  void anIngesterWhoseSourceCannotConnectIsNotReady() {
    given()
        .port(ManagementPort.get())
        .get("/q/health/ready")
        .then()
        .statusCode(503)
        .body(allOf(containsString("event-source"), containsString("\"DOWN\"")));
    assertEquals(0, source.connections(), "no connection was ever made");
  }
}
