package dev.knotless.runner.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PausedOwnersTest {

  private static final String RUNNER = "did:plc:runner";

  @Test
  void aNamedOwnerIsPausedWithTheOperatorsReason() {
    PausedOwners p =
        PausedOwners.parse("{\"did:plc:miner\": \"mining, by the looks of it\"}", "f", RUNNER);
    assertEquals(Optional.of("mining, by the looks of it"), p.reasonFor("did:plc:miner"));
    assertEquals(Optional.empty(), p.reasonFor("did:plc:alice"));
    assertEquals(
        "paused by this runner's operator: mining, by the looks of it",
        PausedOwners.message(p.reasonFor("did:plc:miner").orElseThrow()));
  }

  @Test
  void starPausesEveryOwnerButTheRunnersOwnAccount() {
    PausedOwners p =
        PausedOwners.parse("{\"*\": \"maintenance\", \"did:plc:x\": \"own reason\"}", "f", RUNNER);
    assertEquals(Optional.of("maintenance"), p.reasonFor("did:plc:alice"));
    assertEquals(Optional.of("own reason"), p.reasonFor("did:plc:x"));
    assertEquals(Optional.empty(), p.reasonFor(RUNNER));
  }

  @Test
  void aFileThatCannotBeReadPausesNoOne(@TempDir Path dir) {
    PausedOwners p = PausedOwners.read(dir.resolve("missing.json"), RUNNER);
    assertTrue(p.isEmpty());
  }

  @Test
  void aFileThatIsNotSuchAnObjectFailsThePassNamingWhatIsWrong(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("paused.json");
    Files.writeString(file, "[\"did:plc:x\"]");
    var e = assertThrows(PausedFileException.class, () -> PausedOwners.read(file, RUNNER));
    assertEquals(
        "paused file "
            + file
            + " must be a JSON object of owner DIDs (or \"*\") to reasons, not array",
        e.getMessage());
    var notDid =
        assertThrows(
            PausedFileException.class, () -> PausedOwners.parse("{\"alice\": \"x\"}", "f", RUNNER));
    assertEquals(
        "paused file f: key \"alice\" is neither an owner DID nor \"*\"", notDid.getMessage());
    var notText =
        assertThrows(
            PausedFileException.class, () -> PausedOwners.parse("{\"did:plc:a\": 3}", "f", RUNNER));
    assertEquals(
        "paused file f: the reason for \"did:plc:a\" must be a string", notText.getMessage());
    assertThrows(PausedFileException.class, () -> PausedOwners.parse("{nope", "f", RUNNER));
  }
}
