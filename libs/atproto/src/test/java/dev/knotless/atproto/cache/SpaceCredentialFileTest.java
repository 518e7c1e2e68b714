package dev.knotless.atproto.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.knotless.atproto.space.SpaceCredentials.Held;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SpaceCredentialFileTest {
  @TempDir Path dir;

  @Test
  void credentialsAreKeptForTheirOwnerAloneAndReadByTheNextProcess() throws Exception {
    Held held = new Held("secret-credential", Instant.now().plusSeconds(3600));
    new SpaceCredentialFile(dir).put("did:plc:me host did:plc:o/box", held);

    Path file = dir.resolve(SpaceCredentialFile.FILE_NAME);
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    assertEquals(
        Optional.of(held), new SpaceCredentialFile(dir).get("did:plc:me host did:plc:o/box"));
    assertFalse(held.toString().contains("secret-credential"), "never printed");
  }

  @Test
  void anEndedCredentialIsDroppedAndARemoveSparesOneThatReplacedIt() {
    SpaceCredentialFile f = new SpaceCredentialFile(dir);
    f.put("old", new Held("a", Instant.now().minusSeconds(1)));
    Held first = new Held("b", Instant.now().plusSeconds(60));
    f.put("new", first);
    assertEquals(Optional.empty(), f.get("old"));

    Held second = new Held("c", Instant.now().plusSeconds(60));
    f.put("new", second);
    f.remove("new", first);
    assertEquals(Optional.of(second), f.get("new"));
    f.remove("new", second);
    assertEquals(Optional.empty(), f.get("new"));
  }
}
