package dev.knotless.runner.state.pg;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/** What opening the store says when it cannot; no server is needed for either. */
class PgStateStoresTest {

  @Test
  void aUrlThatIsNotPostgresIsRefusedBeforeAnyConnection() {
    IOException e =
        assertThrows(
            IOException.class, () -> PgStateStores.open("jdbc:mysql://db/state", "u", "secret"));
    assertTrue(e.getMessage().contains("not a PostgreSQL JDBC URL"), e.getMessage());
  }

  @Test
  void anUnreachableDatabaseIsNamedWithoutThePassword() throws Exception {
    int closed;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = s.getLocalPort();
    }
    String url = "jdbc:postgresql://127.0.0.1:" + closed + "/state";

    IOException e =
        assertThrows(IOException.class, () -> PgStateStores.open(url, "runner", "s3cret-pw"));

    assertTrue(e.getMessage().startsWith("cannot connect to " + url + ": "), e.getMessage());
    assertTrue(!e.getMessage().contains("s3cret-pw"), e.getMessage());
  }
}
