package dev.knotless.runner.state;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.knotless.runner.schedule.UsageLedger;
import java.nio.file.Path;
import java.time.LocalDate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UsageSeedTest {

  @Test
  void anOwnersAllowanceCountsEveryOneOfTheirRepositoriesAfterARestart(@TempDir Path dir) {
    LocalDate today = LocalDate.of(2026, 11, 29);
    StateStore store = new JsonStateStore(dir.resolve("state.json"));
    store.update("did:plc:alice/3ka", s -> s.withUsage(today, 60_000, false, today));
    store.update("did:plc:alice/3kb", s -> s.withUsage(today.minusDays(3), 30_000, false, today));
    store.update("did:plc:alice/3kc", s -> s.withUsage(today, 5_000, true, today));
    store.update("did:plc:bob/3kd", s -> s.withUsage(today, 1_000, false, today));
    UsageLedger ledger = new UsageLedger();
    UsageSeed.into(ledger, new JsonStateStore(dir.resolve("state.json")));
    assertEquals(90_000, ledger.usedMillis("did:plc:alice", false, today));
    assertEquals(5_000, ledger.usedMillis("did:plc:alice", true, today));
    assertEquals(1_000, ledger.usedMillis("did:plc:bob", false, today));
  }
}
