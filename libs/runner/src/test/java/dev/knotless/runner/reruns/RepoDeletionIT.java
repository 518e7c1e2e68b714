package dev.knotless.runner.reruns;

import static dev.knotless.runner.reruns.Stage.MAIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.check.CheckStatus;
import dev.knotless.testing.LocalDocker;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A watched repository deleted by its owner, against the real PDS (and, for its caches, the docker
 * daemon).
 */
@WithPds
class RepoDeletionIT {

  @Test
  void aDeletedRepositoryLosesItsChecksAndItsGrants(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    try (Stage s = new Stage(pds, tmp, false)) {
      Path secrets = tmp.resolve("secrets.json");
      Files.writeString(
          secrets,
          "{\"%s\": {\"TOKEN\": \"tok-1234567\"}, \"other/repo\": {\"X\": \"y-123456\"}}"
              .formatted(s.label()));
      s.commit(Map.of("README.md", "hi\n"));
      s.push("main");
      s.start("--secrets", secrets.toString());
      String sha =
          s.commit(
              Map.of(
                  ".knotless/workflows/ci.yml",
                  "on: {push: {}}\nsteps:\n  - name: a\n    run: echo a\n"));
      s.push("main");
      s.awaitEnded(MAIN, sha, "ci");
      String key = s.key();
      assertFalse(s.checks().isEmpty());

      s.ownerClient.deleteRecord(s.owner.did(), "dev.knotless.repo", "app");

      Stage.await(
          "the checks to go",
          () -> {
            try {
              return s.checks(key).isEmpty();
            } catch (java.io.IOException e) {
              return false;
            }
          });
      Stage.await(
          "the grants to go",
          () -> {
            try {
              return !Files.readString(secrets).contains(s.label());
            } catch (java.io.IOException e) {
              return false;
            }
          });
      assertTrue(Files.readString(secrets).contains("other/repo"));
    }
  }

  @Test
  void aDeletedRepositoryLosesItsCachesBases(PdsInstance pds, @TempDir Path tmp) throws Exception {
    LocalDocker.ensure();
    try (Stage s = new Stage(pds, tmp, false)) {
      s.commit(Map.of("README.md", "hi\n"));
      s.push("main");
      Path caches = tmp.resolve("caches");
      s.start(
          "--executor", "docker", "--image", LocalDocker.BUSYBOX, "--cache-dir", caches.toString());
      String sha =
          s.commit(
              Map.of(
                  ".knotless/workflows/ci.yml",
                  "on: {push: {}}\nimage: knotless-test/busybox:1\ncache: [/cache]\n"
                      + "steps:\n  - name: a\n    run: echo a > /cache/a\n"));
      s.push("main");
      assertEquals(CheckStatus.SUCCESS, s.awaitEnded(MAIN, sha, "ci").status());
      Path bases = caches.resolve("bases");
      assertEquals(1, count(bases), "the push's pass made no base");

      s.ownerClient.deleteRecord(s.owner.did(), "dev.knotless.repo", "app");

      Stage.await("the caches' bases to go", () -> count(bases) == 0);
    }
  }

  private static long count(Path dir) {
    try (java.util.stream.Stream<Path> all = Files.list(dir)) {
      return all.count();
    } catch (java.io.IOException e) {
      return -1;
    }
  }
}
