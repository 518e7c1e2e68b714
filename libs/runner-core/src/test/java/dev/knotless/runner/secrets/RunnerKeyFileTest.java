package dev.knotless.runner.secrets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.seal.SealBinding;
import dev.knotless.atproto.seal.SealException;
import dev.knotless.atproto.seal.SecretSeal;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunnerKeyFileTest {

  private static final Instant T0 = Instant.parse("2026-12-01T00:00:00Z");
  private static final SealBinding B =
      new SealBinding("did:plc:o", "3lkey", "did:plc:r", "TOKEN", List.of());

  @Test
  void aFirstStartMakesOneKeyReadableByItsOwnerAloneAndLaterStartsKeepIt(@TempDir Path dir)
      throws Exception {
    Path f = dir.resolve("state-dir").resolve("secrets-key.json");
    RunnerKeys made = RunnerKeyFile.loadOrCreate(f, T0);
    assertEquals(1, made.keys().size());
    assertTrue(made.newest().didKey().startsWith("did:key:zDn"));
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
    RunnerKeys again = RunnerKeyFile.loadOrCreate(f, T0.plusSeconds(60));
    assertEquals(made.newest().didKey(), again.newest().didKey());
    assertFalse(
        made.toString()
            .contains(java.util.Base64.getEncoder().encodeToString(made.newest().privateKey())));
  }

  @Test
  void aRotationPublishesANewKeyWhileValuesSealedToTheOldOneStillOpenUntilRetired(@TempDir Path dir)
      throws Exception {
    Path f = dir.resolve("secrets-key.json");
    RunnerKeys before = RunnerKeyFile.loadOrCreate(f, T0);
    SecretSeal.Sealed old = SecretSeal.seal(before.newest().didKey(), B, "v-old-1234");
    RunnerKeys after = RunnerKeyFile.rotate(f, T0.plusSeconds(1));
    assertEquals(2, after.keys().size());
    assertNotEquals(before.newest().didKey(), after.newest().didKey());
    assertEquals(before.newest().didKey(), after.keys().get(1).didKey());
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
    assertEquals("v-old-1234", RunnerKeyFile.read(f).open(B, old));
    SecretSeal.Sealed fresh = SecretSeal.seal(after.newest().didKey(), B, "v-new-5678");
    assertEquals("v-new-5678", RunnerKeyFile.read(f).open(B, fresh));

    RunnerKeys retired = RunnerKeyFile.retire(f);
    assertEquals(
        List.of(after.newest().didKey()),
        retired.keys().stream().map(RunnerKeys.Key::didKey).toList());
    SealException e = assertThrows(SealException.class, () -> RunnerKeyFile.read(f).open(B, old));
    assertTrue(e.getMessage().contains("a key this runner does not hold"), e.getMessage());
  }

  @Test
  void aKeyFileThatIsWrongSaysWhichFileAndNeverQuotesIt(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("k.json");
    Files.writeString(
        f,
        "{\"keys\": [{\"key\": \"did:key:zDnaeX\", \"private\": \"c2VjcmV0LXNjYWxhcg==\", \"createdAt\": \"2026-12-01T00:00:00Z\"}]}");
    IOException e = assertThrows(IOException.class, () -> RunnerKeyFile.loadOrCreate(f, T0));
    assertTrue(e.getMessage().startsWith("secrets key file " + f), e.getMessage());
    assertFalse(e.getMessage().contains("c2VjcmV0"), e.getMessage());
    Files.writeString(f, "not json at all sk=123");
    e = assertThrows(IOException.class, () -> RunnerKeyFile.read(f));
    assertFalse(e.getMessage().contains("sk=123"), e.getMessage());
    Files.writeString(f, "{\"keys\": []}");
    assertThrows(IOException.class, () -> RunnerKeyFile.read(f));
  }
}
