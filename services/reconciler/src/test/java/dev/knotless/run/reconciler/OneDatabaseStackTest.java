package dev.knotless.run.reconciler;

import dev.knotless.run.testkit.DatabaseStack;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** One database stack in this process: JDBC over one Agroal pool, nothing reactive beside it. */
class OneDatabaseStackTest {
  @Test
  void theReconcilerTalksToPostgresqlThroughOneJdbcPoolOnly() {
    DatabaseStack.assertJdbcOnly(Path.of("src/main/java"));
  }
}
