package dev.knotless.runner.check;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.BlobRef;
import dev.knotless.atproto.lexicon.LexiconValidator;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The check records the runner writes agree with lexicons/dev/knotless/check.json, both ways. */
class CheckRecordLexiconTest {
  private static final Instant T0 = Instant.parse("2026-11-29T10:00:00.123Z");
  private static final String REPO = "at://did:plc:abcdefghijklmnopqrstuvwx/dev.knotless.repo/r";
  private static LexiconValidator lexicons;

  @BeforeAll
  static void load() throws Exception {
    String root = System.getProperty("knotless.repo.root", "../..");
    lexicons = LexiconValidator.load(Path.of(root, "lexicons"));
  }

  @Test
  void aQueuedCheckWritesOnlyWhatTheLexiconHasAndAllItRequires() {
    CheckRecord queued =
        new CheckRecord(
            REPO,
            "refs/heads/main",
            "a".repeat(40),
            null,
            null,
            "ci",
            CheckStatus.QUEUED,
            T0,
            null,
            null,
            List.of(),
            null,
            List.of(),
            null);
    assertEquals(List.of(), lexicons.problems(CheckRecord.COLLECTION, queued.toJson()));
  }

  @Test
  void anEndedPullCheckWithNotesALogAndAnImageAgreesWithTheLexicon() {
    ObjectNode image = JsonNodeFactory.instance.objectNode();
    image.put("$type", "dev.knotless.check#imageOutput");
    image.put("name", "coverage.png");
    image.set("image", new BlobRef("bafkreiabc", "image/png", 10).toJson());
    CheckRecord ended =
        new CheckRecord(
                REPO,
                "refs/heads/feature",
                "a".repeat(40),
                "b".repeat(40),
                "at://did:plc:abcdefghijklmnopqrstuvwx/dev.knotless.pull/3lbqmxnq7cs2b",
                "unit tests",
                CheckStatus.RUNNING,
                T0,
                T0.plusSeconds(1),
                null,
                List.of(),
                new BlobRef("bafkreiabd", "text/plain", 1234),
                List.of(image),
                null)
            .ended(
                CheckStatus.CANCELLED,
                T0.plusSeconds(60),
                List.of(
                    new StepResult("build", StepResult.Status.SUCCESS, T0, T0.plusSeconds(5), null),
                    new StepResult(
                        "test", StepResult.Status.CANCELLED, T0, T0.plusSeconds(9), "cancelled"),
                    new StepResult("deploy", StepResult.Status.SKIPPED, null, null, "cancelled")),
                "cancelled by a newer push");
    assertEquals(List.of(), lexicons.problems(CheckRecord.COLLECTION, ended.toJson()));
  }
}
